// The Temporal CLI's dev server (SQLite under DATA_DIR, Web UI), run as a child process we own.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Connection } from '@temporalio/client';
import type { Logger } from './logger.ts';
import { portIsFree } from './ports.ts';
import { unwatchChild, watchChild } from './watchdog.ts';

export interface TemporalDevServer {
  address: string;
  uiUrl: string;
  pid: number;
  stop(): Promise<void>;
}

export interface TemporalDevServerOptions {
  cliPath: string;
  dataDir: string;
  port: number;
  uiPort: number;
  namespace: string;
  logger: Logger;
  startTimeoutMs?: number;
  /** Extra `start-dev` arguments: the tuning (devServerTuningArgs). */
  extraArgs?: string[];
}

async function waitUntilServing(
  address: string,
  child: ChildProcess,
  timeoutMs: number,
  stderrTail: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`temporal dev server exited during start-up (code ${child.exitCode}): ${stderrTail()}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await connection.workflowService.getSystemInfo({});
      } finally {
        await connection.close();
      }
      return;
    } catch (error) {
      lastError = error;
      await new Promise((done) => setTimeout(done, 250));
    }
  }
  throw new Error(
    `temporal dev server did not answer on ${address} within ${timeoutMs} ms: ${(lastError as Error)?.message}`,
  );
}

function stopChild(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(force);
      done();
    });
    child.kill('SIGTERM');
  });
}

/** Sends `name` to `pid`; false when there is no such process (any more). */
function signal(pid: number, name: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}
const alive = (pid: number) => signal(pid, 0);

/**
 * A dev server of an earlier run on this data directory (its pid file names a process whose command line runs
 * start-dev on our database file) is ours: stop it. Anything else is never adopted.
 */
async function stopOrphan(pidFile: string, dbFile: string, log: Logger): Promise<void> {
  const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
  if (!Number.isInteger(pid) || pid <= 0) return;
  const commandLine = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  const args = commandLine.split('\0');
  if (!args.includes('start-dev') || !args.includes(dbFile)) return;
  log.warn({ pid }, 'stopping the dev server an earlier run left behind');
  signal(pid, 'SIGTERM');
  for (let waited = 0; alive(pid) && waited < 5_000; waited += 100) await new Promise((done) => setTimeout(done, 100));
  if (alive(pid)) signal(-pid, 'SIGKILL');
}

async function ensurePortsFree(options: TemporalDevServerOptions, pidFile: string, dbFile: string, log: Logger) {
  const ports = [
    ['TEMPORAL_DEV_SERVER_PORT', options.port],
    ['TEMPORAL_UI_PORT', options.uiPort],
  ] as const;
  if (!(await Promise.all(ports.map(([, port]) => portIsFree(port)))).every(Boolean))
    await stopOrphan(pidFile, dbFile, log);
  for (const [key, port] of ports) {
    if (!(await portIsFree(port))) {
      throw new Error(
        `Port ${port} (${key}) on 127.0.0.1 is already in use by another process, so the Temporal dev server cannot ` +
          `start there. Stop that process, set ${key} to a free port, or set TEMPORAL_ADDRESS to use a Temporal ` +
          'server that is already running.',
      );
    }
  }
}

export async function startTemporalDevServer(options: TemporalDevServerOptions): Promise<TemporalDevServer> {
  if (!existsSync(options.cliPath)) {
    throw new Error(
      `Temporal CLI not found at ${options.cliPath}: run \`node scripts/setup.mjs\` or set TEMPORAL_ADDRESS.`,
    );
  }
  const log = options.logger.child({ component: 'temporal-dev-server' });
  const dataDir = resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true });
  const pidFile = resolve(dataDir, 'dev-server.pid');
  const dbFile = resolve(dataDir, 'temporal.db');
  // Otherwise a server already on the port would answer our readiness check while ours fails to bind.
  await ensurePortsFree(options, pidFile, dbFile, log);
  const child = spawn(
    options.cliPath,
    [
      'server',
      'start-dev',
      '--ip',
      '127.0.0.1',
      '--port',
      String(options.port),
      '--ui-port',
      String(options.uiPort),
      '--db-filename',
      dbFile,
      '--namespace',
      options.namespace,
      '--log-level',
      'warn',
      ...(options.extraArgs ?? []),
    ],
    {
      // Its own process group: Ctrl-C must not kill it before the worker has drained; we stop it last.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout?.on('data', (chunk: Buffer) => log.debug(chunk.toString().trim()));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2_000);
    log.warn(chunk.toString().trim());
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  // It runs in its own process group, so nothing else stops it if this process dies first: kill it on the way out
  // unless stop() already did, and let the watchdog stop it if this process dies without a way out (kill -9).
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  if (child.pid !== undefined) {
    watchChild(child.pid, 'SIGTERM');
    await writeFile(pidFile, `${child.pid}\n`);
  }
  void exited.then(async () => {
    process.removeListener('exit', killOnExit);
    if (child.pid !== undefined) unwatchChild(child.pid);
    await rm(pidFile, { force: true });
  });
  child.once('exit', (code, signal) => log.info({ code, signal }, 'temporal dev server exited'));

  const address = `127.0.0.1:${options.port}`;
  try {
    await waitUntilServing(address, child, options.startTimeoutMs ?? 30_000, () => stderr.trim() || '(no output)');
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return {
    address,
    uiUrl: `http://localhost:${options.uiPort}`,
    pid: child.pid!,
    async stop() {
      await stopChild(child);
      await exited;
    },
  };
}
