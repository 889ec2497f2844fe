// A worker as operators run one (`npm start -- --role worker`), in its own process, against a test stack's database
// and dev server: for the tests that kill it, or read what only a process of its own shows.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');

export interface WorkerProcessOptions {
  databaseUrl: string;
  temporalAddress: string;
  taskQueue: string;
  dataDir: string;
  /** More configuration (webhook queue, metrics ports, …). */
  env?: Record<string, string>;
  /** Collect its output (to wait for its banner, or say why it died); otherwise ignored. */
  captureOutput?: boolean;
}

export function spawnWorkerProcess(options: WorkerProcessOptions): ChildProcess {
  return spawn(process.execPath, ['scripts/start.mjs', '--role', 'worker'], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: options.databaseUrl,
      TEMPORAL_ADDRESS: options.temporalAddress,
      TEMPORAL_TASK_QUEUE: options.taskQueue,
      DATA_DIR: options.dataDir,
      LOG_LEVEL: 'warn',
      NODE_ENV: 'test',
      ...options.env,
    },
    stdio: options.captureOutput ? ['ignore', 'pipe', 'pipe'] : 'ignore',
  });
}

/** SIGTERM (a graceful stop), resolved once it has exited; nothing to do for one that exited already. */
export async function stopWorkerProcess(worker: ChildProcess | undefined): Promise<void> {
  if (!worker || worker.exitCode !== null || worker.signalCode !== null) return;
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  worker.kill('SIGTERM');
  await exited;
}
