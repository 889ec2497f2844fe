// `npm run cluster`'s own startCluster, run in this process in a scratch DATA_DIR on free ports: the benchmark
// measures its parts and the fault suite kills and restarts them (ClusterPart), requests going through Caddy.
import { rm } from 'node:fs/promises';
import { loadClusterConfig, type StartedCluster, startCluster } from '../../cluster/cluster-runtime.ts';
import type { ClusterPart } from '../../cluster/cluster-parts.ts';
import { clusterPublicPorts } from '../../cluster/public-ports.ts';
import type { Config } from '../../src/config/config.ts';
import { createPrisma, type PrismaClient } from '../../src/db/prisma.ts';
import { createLogger } from '../../src/infra/logger.ts';
import { type Stop, stopAll } from '../../src/infra/processes/stops.ts';
import { freePortSettings } from '../scratch-env.ts';

export interface InProcessCluster {
  config: Config;
  cluster: StartedCluster;
  /** A part by name (`postgres`, `temporal`, `api-1`, `worker-2`, …); throws naming the parts if there is none. */
  part(name: string): ClusterPart;
  /** A pool on the cluster's database, closed at stop. */
  prisma: PrismaClient;
  /** Run at stop, last added first, with the cluster's own. */
  stops: Stop[];
  /** Stops every part still running (one a scenario killed and left down is already stopped); `dir` removed unless kept. */
  stop(options?: { keepData?: boolean }): Promise<void>;
}

/** `env` on top of this process's; `dir` is the cluster's DATA_DIR (see scratchDir), removed at stop. */
export async function startInProcessCluster(dir: string, env: Record<string, string>): Promise<InProcessCluster> {
  const given: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dir, ...env };
  // Every port the cluster listens on for others, free; it picks its internal ones itself.
  Object.assign(given, await freePortSettings(clusterPublicPorts(loadClusterConfig(given)).map((p) => p.setting)));
  const config = loadClusterConfig({ ...given, LOG_LEVEL: 'error' });
  const logger = createLogger(config.server);
  const stops: Stop[] = [];
  const stop = async ({ keepData = false } = {}) => {
    await stopAll(stops, logger);
    if (!keepData) await rm(dir, { recursive: true, force: true });
  };
  let cluster: StartedCluster;
  try {
    cluster = await startCluster(config, logger, stops, given);
  } catch (error) {
    await stop();
    throw error;
  }
  const prisma = createPrisma(cluster.databaseUrl);
  stops.push({ name: 'harness database pool', stop: () => prisma.$disconnect() });
  const part = (name: string) => {
    const found = cluster.parts.find((each) => each.name === name);
    if (!found)
      throw new Error(`the cluster has no part ${name}; it has ${cluster.parts.map((each) => each.name).join(', ')}`);
    return found;
  };
  return { config, cluster, part, prisma, stops, stop };
}
