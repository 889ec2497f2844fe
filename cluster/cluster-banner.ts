// What `npm run cluster` prints once it is up: where each part listens, its pid, and where its data and logs are.
import { join } from 'node:path';
import type { Config } from '../src/config/config.ts';
import type { GatewayProcess } from './gateway-processes.ts';
import { clusterSecretsFile } from './cluster-secrets.ts';
import { metricsTargetsFile } from './metrics-targets.ts';
import { historyShards, temporalServerVersion } from './versions.ts';

interface Running {
  pid: number;
}

export interface ClusterPieces {
  config: Config;
  publicUrl: string;
  clusterDir: string;
  logDir: string;
  balancer: Running;
  apis: GatewayProcess[];
  workers: GatewayProcess[];
  ui: { url: string; process: Running };
  temporal: { address: string; process: Running };
  postgres: { host: string; port: number; pid: number };
  store: { endpoint: string; bucket: string; process: Running };
  /** The chain's own lines (startChains), and x402's. */
  chain: string[];
  x402: string[];
}

const pid = (proc: Running) => `pid ${proc.pid}`;

export function clusterBanner(pieces: ClusterPieces): string[] {
  const { config, publicUrl, clusterDir, apis, workers, ui, temporal, postgres, store } = pieces;
  const { taskQueue, namespace } = config.temporal;
  return [
    `API           ${publicUrl}/api/v1   (Caddy ${pid(pieces.balancer)}, balancing ${apis.length} api processes)`,
    `Docs          ${publicUrl}/docs`,
    `Health        ${publicUrl}/healthz`,
    ...apis.map(
      ({ name, port, metricsPort, process }) =>
        `${name.padEnd(14)}http://127.0.0.1:${port}, metrics :${metricsPort}   (${pid(process)})`,
    ),
    ...workers.map(
      ({ name, metricsPort, temporalMetricsPort, process }) =>
        `${name.padEnd(14)}task queue ${taskQueue}, metrics :${metricsPort} and :${temporalMetricsPort} (Temporal SDK)   (${pid(process)})`,
    ),
    `Metrics       Prometheus targets in ${metricsTargetsFile(clusterDir)} (file_sd_configs)`,
    `Temporal UI   ${ui.url}   (${pid(ui.process)})`,
    `Temporal      ${temporal.address}, server ${temporalServerVersion} on PostgreSQL, ${historyShards} history shards, namespace ${namespace}   (${pid(temporal.process)})`,
    `PostgreSQL    ${postgres.host}:${postgres.port}, databases gateway, temporal, temporal_visibility (data in ${join(clusterDir, 'postgres')}; pid ${postgres.pid})`,
    ...pieces.chain,
    ...pieces.x402,
    `Storage       S3 bucket ${store.bucket} at ${store.endpoint}, SeaweedFS (data in ${join(clusterDir, 'objects')}; ${pid(store.process)})`,
    `Secrets       ${clusterSecretsFile(clusterDir)} (PostgreSQL's password, the store's S3 keys; made for this data directory)`,
    `Logs          ${pieces.logDir}`,
  ];
}
