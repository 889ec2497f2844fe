// The embedded default (embedded PostgreSQL, Temporal dev server, API and worker in this process) in a scratch data
// directory on free ports, as `npm start` runs it: what the benchmark and the read profile load.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCatalog } from '../src/catalog/catalog.ts';
import { type Config, embeddedDatabaseUrl, loadConfig } from '../src/config/config.ts';
import { createPrisma, type PrismaClient } from '../src/db/prisma.ts';
import { createLogger } from '../src/infra/logger.ts';
import { startRuntime } from '../src/runtime.ts';
import { type Stop, stopAll } from '../src/infra/processes/stops.ts';
import { freePort } from '../harness/ports.ts';
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
  /** Peak resident memory, MB, of each process that serves the gateway (the table's memory rows). */
  peakRss(): Map<string, number>;
  prisma: PrismaClient;
  /** Run at stop, last added first, with the service's own. */
  stops: Stop[];
  stop(): Promise<void>;
}

export async function startEmbeddedService(name: string, env: Record<string, string> = {}): Promise<BenchService> {
  const dataDir = await mkdtemp(join(tmpdir(), `gateway-${name}-`));
  await chmod(dataDir, 0o755);
  const config = loadConfig(
    {
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      EMBEDDED_POSTGRES_PORT: String(await freePort()),
      TEMPORAL_DEV_SERVER_PORT: String(await freePort()),
      TEMPORAL_UI_PORT: String(await freePort()),
      LOG_LEVEL: 'error',
      ...env,
    },
    [],
  );
  const logger = createLogger(config.server);
  const stops: Stop[] = [];
  const stop = async () => {
    await stopAll(stops, logger);
    await rm(dataDir, { recursive: true, force: true });
  };
  await startedOrStopped(() => startRuntime(config, loadCatalog(), logger, stops), stop);
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

/** Runs `start`; if it fails, `stop` cleans up what it left before the failure is rethrown. */
export async function startedOrStopped(start: () => Promise<unknown>, stop: () => Promise<void>): Promise<void> {
  try {
    await start();
  } catch (error) {
    await stop();
    throw error;
  }
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
