// Each api and worker process of the cluster serves its metrics on a port of its own; this file lists them for
// Prometheus (file_sd_configs), with the jobs deploy/prometheus.yml scrapes in compose, so one dashboard reads both.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface MetricsListener {
  role: 'api' | 'worker';
  name: string;
  metricsPort: number;
  /** The Temporal SDK's worker metrics (workers only). */
  temporalMetricsPort?: number;
}

export const metricsTargetsFile = (clusterDir: string) => join(clusterDir, 'prometheus-targets.json');

export async function writeMetricsTargets(clusterDir: string, host: string, listeners: MetricsListener[]) {
  const target = (port: number) => `${host}:${port}`;
  const job = (name: string, chosen: MetricsListener[], port: (each: MetricsListener) => number | undefined) =>
    chosen.flatMap((each) => {
      const at = port(each);
      return at ? [{ targets: [target(at)], labels: { job: name, instance_name: each.name } }] : [];
    });
  const of = (role: MetricsListener['role']) => listeners.filter((each) => each.role === role);
  const groups = [
    ...job('gateway-api', of('api'), ({ metricsPort }) => metricsPort),
    ...job('gateway-worker', of('worker'), ({ metricsPort }) => metricsPort),
    ...job('temporal-sdk', of('worker'), ({ temporalMetricsPort }) => temporalMetricsPort),
  ];
  await writeFile(metricsTargetsFile(clusterDir), `${JSON.stringify(groups, null, 2)}\n`);
}
