// `npm run cluster` as an operator runs it, for the tests of the scale-out layout: a scratch DATA_DIR and free ports,
// the cluster script in a process group of its own (as a shell's job is), up once its banner is out.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.ts';

const root = join(import.meta.dirname, '..', '..');

export interface LaunchedCluster {
  child: ChildProcess;
  output: () => string;
}

/** The settings a cluster on this machine needs to keep clear of every other test: its own directory and ports. */
export async function scratchClusterEnv(prefix: string): Promise<Record<string, string>> {
  const dataDir = await mkdtemp(join(tmpdir(), prefix));
  // PostgreSQL runs as the `postgres` user, which must reach its data directory.
  await chmod(dataDir, 0o755);
  return {
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    EMBEDDED_POSTGRES_PORT: String(await freePort()),
    CLUSTER_TEMPORAL_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
    CLUSTER_S3_PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
    // Inputs and webhooks are served by the tests on 127.0.0.1.
    ALLOW_PRIVATE_INPUT_URLS: 'true',
    ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
    DATABASE_URL: '',
    TEMPORAL_ADDRESS: '',
    BASE_RPC_URL: '',
    POLYGON_RPC_URL: '',
    ETHEREUM_RPC_URL: '',
  };
}

/** Resolves once the banner is out (the builds are made before: see the global setup); rejects if it exits first. */
export function launchCluster(env: Record<string, string>, timeoutMs = 300_000): Promise<LaunchedCluster> {
  const child = spawn(process.execPath, ['scripts/cluster.mjs'], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`not up within ${timeoutMs / 1000} s:\n${output}`));
    }, timeoutMs);
    child.stdout!.on('data', () => {
      if (!output.includes('Press Ctrl-C to stop.')) return;
      clearTimeout(timer);
      resolve({ child, output: () => output });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}:\n${output}`));
    });
  });
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
