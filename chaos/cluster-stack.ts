// The cluster layout for the fault suite (`--cluster`): the harness's in-process cluster in the scenario's scratch
// DATA_DIR, so a scenario can SIGKILL any of its parts and start it again on the same data and ports (ClusterPart).
import { join } from 'node:path';
import type { ClusterPart } from '../cluster/cluster-parts.ts';
import { startInProcessCluster } from '../harness/stacks/in-process-cluster.ts';
import { sleep } from '../src/infra/processes/supervised-process.ts';
import type { Stack } from './stack-type.ts';

/** SIGKILL of a part, then, after `downMs`, the same part again. */
export async function killAndRestart(part: ClusterPart, downMs: number): Promise<void> {
  await part.kill();
  await sleep(downMs);
  await part.start();
}

/** `env`: what the other stacks give their gateway processes (commonEnv), here handed to the cluster's. */
export async function startClusterStack(dir: string, env: Record<string, string>): Promise<Stack> {
  const { cluster, part, prisma, stop } = await startInProcessCluster(dir, env);
  return {
    dir,
    logDir: join(dir, 'cluster', 'logs'),
    apiUrls: [cluster.apiUrl],
    apis: [],
    workers: [],
    prisma,
    part,
    restartPostgres: (downMs) => killAndRestart(part('postgres'), downMs),
    restartTemporal: (downMs) => killAndRestart(part('temporal'), downMs),
    restartWorker: (index) => killAndRestart(part(`worker-${index + 1}`), 0),
    restartAll: () => Promise.reject(new Error('the cluster has no whole `npm start`')),
    // A part the scenario killed and left down is already stopped; the rest stop in order.
    stop: ({ keepData }) => stop({ keepData }),
  };
}
