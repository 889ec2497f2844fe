// The benchmark's view of a running service (BenchService), and the embedded default in this process
// (harness/stacks/in-process-embedded.ts) seen that way: what the benchmark's in-process rows and the read profile load.
import { type Config, embeddedDatabaseUrl } from '../src/config/config.ts';
import { createPrisma, type PrismaClient } from '../src/db/prisma.ts';
import type { Stop } from '../src/infra/processes/stops.ts';
import { startInProcessEmbedded } from '../harness/stacks/in-process-embedded.ts';
import { sampleCpu } from './process-cpu.ts';

/** A running service the benchmark loads: the embedded default, or the cluster (bench/cluster-service.ts). */
export interface BenchService {
  config: Config;
  dataDir: string;
  /** `http://127.0.0.1:<port>/api/v1` */
  api: string;
  /** The Temporal frontend the workers poll (the echo reference runs there too). */
  temporalAddress: string;
  /** What runs, for the table's title. */
  layout: string;
  /** CPU used so far, ms, by kind of process. */
  sampleCpu(): Record<string, number>;
  /** CPU used so far, ms, by the service's Node threads by name, where the benchmark can tell them apart. */
  sampleThreads?(): Map<string, number>;
  /** Peak resident memory, MB, of each process that serves the gateway (the table's memory rows). */
  peakRss(): Map<string, number>;
  prisma: PrismaClient;
  /** Run at stop, last added first, with the service's own. */
  stops: Stop[];
  stop(): Promise<void>;
}

export async function startEmbeddedService(name: string, env: Record<string, string> = {}): Promise<BenchService> {
  const { config, dataDir, stops, stop } = await startInProcessEmbedded(`gateway-${name}-`, env);
  return {
    ...embeddedEndpoints(config, stops),
    dataDir,
    layout: 'embedded default, client in the same process',
    sampleCpu: () => {
      const { nodeMs, temporalMs, postgresMs } = sampleCpu();
      return { Node: nodeMs, Temporal: temporalMs, PostgreSQL: postgresMs };
    },
    peakRss: () => new Map([['the process (api, worker and this client)', process.resourceUsage().maxRSS / 1024]]),
    stops,
    stop,
  };
}

/** What the bench reads of an embedded default it started: its API, its Temporal frontend, a pool on its database. */
export function embeddedEndpoints(config: Config, stops: Stop[]) {
  const prisma = createPrisma(embeddedDatabaseUrl(config.database));
  stops.push({ name: 'bench database pool', stop: () => prisma.$disconnect() });
  return {
    config,
    prisma,
    api: `http://127.0.0.1:${config.server.port}/api/v1`,
    temporalAddress: `127.0.0.1:${config.temporal.devServer.port}`,
  };
}
