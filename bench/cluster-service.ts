// `npm run bench -- --cluster`: `npm run cluster`'s own startCluster in a scratch data directory on free ports, run
// in this process as the embedded default is, requests going through Caddy; its CPU is counted per process kind.
import { historyShards, temporalServerVersion } from '../cluster/versions.ts';
import { scratchDir } from '../harness/scratch-env.ts';
import { startInProcessCluster } from '../harness/stacks/in-process-cluster.ts';
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
  const dataDir = await scratchDir(`gateway-${name}-cluster-`);
  const { config, cluster, prisma, stops, stop } = await startInProcessCluster(dataDir, { LOG_LEVEL: 'error', ...env });
  const { parts } = cluster;
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
