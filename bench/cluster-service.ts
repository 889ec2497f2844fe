// `npm run bench -- --cluster`: `npm run cluster`'s own startCluster in a scratch data directory on free ports, run
// in this process as the embedded default is, requests going through Caddy; its CPU is counted per process kind.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadClusterConfig, startCluster } from '../cluster/cluster-runtime.ts';
import { clusterPublicPorts } from '../cluster/public-ports.ts';
import { historyShards, temporalServerVersion } from '../cluster/versions.ts';
import { createPrisma } from '../src/db/prisma.ts';
import { createLogger } from '../src/infra/logger.ts';
import { type Stop, stopAll } from '../src/infra/processes/stops.ts';
import { freePort } from '../harness/ports.ts';
import type { BenchService } from './embedded-service.ts';
import { peakRssMb, treeCpuMs } from './process-cpu.ts';

/** The CPU row's kinds, in its order, and the parts of each (by name: `api-2` is one of the api processes). */
const kinds: [string, RegExp][] = [
  ['api processes', /^api-\d+$/],
  ['worker processes', /^worker-\d+$/],
  ['Temporal server', /^temporal$/],
  ['PostgreSQL', /^postgres$/],
  ['SeaweedFS', /^objects$/],
  ['Caddy', /^caddy$/],
];

export async function startClusterService(name: string, env: Record<string, string> = {}): Promise<BenchService> {
  const dataDir = await mkdtemp(join(tmpdir(), `gateway-${name}-cluster-`));
  await chmod(dataDir, 0o755);
  const given: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'error', ...env };
  for (const { setting } of clusterPublicPorts(loadClusterConfig(given))) given[setting] = String(await freePort());
  const config = loadClusterConfig(given);
  const logger = createLogger(config.server);
  const stops: Stop[] = [];
  const stop = async () => {
    await stopAll(stops, logger);
    await rm(dataDir, { recursive: true, force: true });
  };
  let cluster;
  try {
    cluster = await startCluster(config, logger, stops, given);
  } catch (error) {
    await stop();
    throw error;
  }
  const { parts } = cluster;
  const prisma = createPrisma(cluster.databaseUrl);
  stops.push({ name: 'bench database pool', stop: () => prisma.$disconnect() });
  const gatewayProcesses = parts.filter((part) => /^(api|worker)-\d+$/.test(part.name));
  return {
    config,
    dataDir,
    api: cluster.apiUrl,
    temporalAddress: cluster.temporalAddress,
    layout:
      `the cluster (${config.cluster.apiProcesses} api and ${config.cluster.workerProcesses} worker processes behind ` +
      `Caddy, Temporal server ${temporalServerVersion} on PostgreSQL with ${historyShards} history shards, SeaweedFS), client in this process`,
    prisma,
    stops,
    stop,
    sampleCpu() {
      const byRoot = treeCpuMs(parts.map((part) => part.pid()));
      const sum = (pattern: RegExp) =>
        parts.filter((part) => pattern.test(part.name)).reduce((ms, part) => ms + byRoot.get(part.pid())!, 0);
      const usage = process.cpuUsage();
      return {
        ...Object.fromEntries(kinds.map(([kind, pattern]) => [kind, sum(pattern)])),
        // The cluster's own supervision runs here too, but does next to nothing while it runs.
        'this client': (usage.user + usage.system) / 1000,
      };
    },
    peakRss: () => new Map(gatewayProcesses.map((part) => [`the ${part.name} process`, peakRssMb(part.pid())])),
  };
}
