// `npm run cluster` as an operator runs it, for the tests of the scale-out layout: a scratch DATA_DIR and free ports,
// the cluster script in a process group of its own (as a shell's job is), up once its banner is out.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { untilBanner } from '../../harness/processes.ts';
import { scratchServiceEnv } from '../../harness/scratch-env.ts';

const root = join(import.meta.dirname, '..', '..');

export interface LaunchedCluster {
  child: ChildProcess;
  output: () => string;
}

/** A cluster on its own directory and ports, taking the inputs and webhooks the tests serve on 127.0.0.1. */
export async function scratchClusterEnv(prefix: string): Promise<Record<string, string>> {
  return {
    ...(await scratchServiceEnv(prefix, ['CLUSTER_TEMPORAL_PORT', 'CLUSTER_S3_PORT'])),
    ALLOW_PRIVATE_INPUT_URLS: 'true',
    ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
  };
}

/** Resolves once the banner is out (the builds are made before: see the global setup); rejects if it exits first. */
export async function launchCluster(env: Record<string, string>, timeoutMs = 300_000): Promise<LaunchedCluster> {
  const child = spawn(process.execPath, ['scripts/cluster.mjs'], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const launched = { child, output: () => output };
  try {
    await untilBanner(child, launched.output, timeoutMs);
  } catch (error) {
    child.kill('SIGTERM');
    throw error;
  }
  return launched;
}

/** SIGTERM, as a supervisor stops it; the script's exit code. */
export async function stopCluster(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  return exited;
}

/** The pid the banner gives a process (`api-1 … (pid 123)`). */
export const pidOf = (banner: string, name: string) =>
  Number(new RegExp(`^\\s+${name}\\s{2,}.*\\(pid (\\d+)\\)`, 'm').exec(banner)?.[1]);
