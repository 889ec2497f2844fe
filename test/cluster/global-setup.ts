// One `npm run cluster` for the scale-out suites of test/cluster/ (each file its own accounts in it), after the
// cluster's builds (minutes the first time on a machine, reused afterwards). SIGTERM at the end must stop it cleanly.
import { rm } from 'node:fs/promises';
import type { TestProject } from 'vitest/node';
import { ensureClusterTools } from '../../cluster/cluster-tools.ts';
import { readRuntimeFile } from '../../src/runtime-file.ts';
import { launchCluster, scratchClusterEnv, stopCluster } from '../helpers/cluster.ts';

export interface SharedCluster {
  /** The balancer: `http://127.0.0.1:<PORT>`. */
  url: string;
  dataDir: string;
  databaseUrl: string;
  temporalAddress: string;
  banner: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    cluster: SharedCluster;
  }
}

export default async function setup(project: TestProject) {
  await ensureClusterTools((line) => console.log(`[cluster] ${line}`));
  const env = await scratchClusterEnv('gateway-cluster-suite-');
  const dataDir = env.DATA_DIR!;
  const launched = await launchCluster(env);
  const runtime = (await readRuntimeFile(dataDir))!;
  project.provide('cluster', {
    url: `http://127.0.0.1:${env.PORT}`,
    dataDir,
    databaseUrl: runtime.databaseUrl!,
    temporalAddress: runtime.temporalAddress!,
    banner: launched.output(),
  });
  return async () => {
    const code = await stopCluster(launched);
    if (code !== 0) throw new Error(`the shared cluster stopped with ${code}:\n${launched.output().slice(-4_000)}`);
    await rm(dataDir, { recursive: true, force: true });
  };
}
