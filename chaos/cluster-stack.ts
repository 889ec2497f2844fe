// The cluster layout for the fault suite (`--cluster`): `npm run cluster`'s own startCluster, run in this process
// in the scenario's scratch DATA_DIR on free ports, so a scenario can SIGKILL any of its parts and start it again on
// the same data and ports (ClusterPart). Requests go through Caddy, as callers' do.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { loadClusterConfig, type StartedCluster, startCluster } from '../cluster/cluster-runtime.ts';
import type { ClusterPart } from '../cluster/cluster-parts.ts';
import { clusterPublicPorts } from '../cluster/public-ports.ts';
import { createPrisma } from '../src/db/prisma.ts';
import { createLogger } from '../src/infra/logger.ts';
import { type Stop, stopAll } from '../src/infra/processes/stops.ts';
import { freePort } from '../harness/ports.ts';
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
  const given: NodeJS.ProcessEnv = { ...process.env, ...env };
  // Every port the cluster listens on for others, free; it picks its internal ones itself.
  for (const { setting } of clusterPublicPorts(loadClusterConfig(given))) given[setting] = String(await freePort());
  const config = loadClusterConfig({ ...given, LOG_LEVEL: 'error' });
  const logger = createLogger(config.server);
  const stops: Stop[] = [];
  let cluster: StartedCluster;
  try {
    cluster = await startCluster(config, logger, stops, given);
  } catch (error) {
    await stopAll(stops, logger);
    throw error;
  }
  const { parts } = cluster;
  const part = (name: string) => {
    const found = parts.find((each) => each.name === name);
    if (!found) throw new Error(`the cluster has no part ${name}; it has ${parts.map((each) => each.name).join(', ')}`);
    return found;
  };
  const prisma = createPrisma(cluster.databaseUrl);
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
    async stop({ keepData }) {
      await prisma.$disconnect().catch(() => undefined);
      // A part the scenario killed and left down is already stopped; the rest stop in order.
      await stopAll(stops, logger);
      if (!keepData) await rm(dir, { recursive: true, force: true });
    },
  };
}
