// `npm run cluster` as an operator runs it, for the tests of the scale-out layout: a scratch DATA_DIR and free ports,
// the cluster script started by the harness (harness/stacks/gateway-process.ts), up once its banner is out.
import { type GatewayProcess, startGatewayProcess } from '../../harness/stacks/gateway-process.ts';
import { scratchServiceEnv } from '../../harness/scratch-env.ts';

/** A cluster on its own directory and ports, taking the inputs and webhooks the tests serve on 127.0.0.1. */
export async function scratchClusterEnv(prefix: string): Promise<Record<string, string>> {
  return {
    ...(await scratchServiceEnv(prefix, ['CLUSTER_TEMPORAL_PORT', 'CLUSTER_S3_PORT'])),
    ALLOW_PRIVATE_INPUT_URLS: 'true',
    ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
  };
}

/** Resolves once the banner is out (the builds are made before: see the global setup); rejects if it exits first. */
export function launchCluster(env: Record<string, string>, timeoutMs = 300_000): Promise<GatewayProcess> {
  return startGatewayProcess({ name: 'npm run cluster', script: 'cluster', env, startTimeoutMs: timeoutMs });
}

/** SIGTERM, as a supervisor stops it; the script's exit code. */
export const stopCluster = (cluster: GatewayProcess): Promise<number | null> => cluster.stop(180_000);

/** The pid the banner gives a process (`api-1 … (pid 123)`). */
export const pidOf = (banner: string, name: string) =>
  Number(new RegExp(`^\\s+${name}\\s{2,}.*\\(pid (\\d+)\\)`, 'm').exec(banner)?.[1]);
