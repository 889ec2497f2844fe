// The Temporal CLI's dev server (SQLite under DATA_DIR, Web UI), run as a child process we own.
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Connection } from '@temporalio/client';
import type { TemporalConfig } from '../config/config.ts';
import type { Logger } from './logger.ts';
import { portIsFree } from './ports.ts';
import {
  alive,
  readyOrStopped,
  signalGroup,
  sleep,
  startSupervised,
  waitUntil,
} from './processes/supervised-process.ts';

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

// A connection and a call, not just an open port: a server still joining its ring accepts connections it cannot
// answer. The cluster's own server is waited for the same way.
/** Whether the frontend at `address` answers GetSystemInfo; throws (for waitUntil to retry) while it does not. */
export async function temporalFrontendAnswers(address: string): Promise<boolean> {
  const connection = await Connection.connect({ address, connectTimeout: 1_000 });
  try {
    await connection.workflowService.getSystemInfo({});
    return true;
  } finally {
    await connection.close();
  }
}

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
  // It led a process group of its own, as ours does.
  signalGroup(pid, 'SIGTERM');
  for (let waited = 0; alive(pid) && waited < 5_000; waited += 100) await sleep(100);
  if (alive(pid)) signalGroup(pid, 'SIGKILL');
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
  // Its own process group: Ctrl-C must not kill it before the worker has drained; we stop it last. Nothing else
  // stops it if this process dies first: it is killed on the way out unless stop() already did, and the watchdog
  // stops it if this process dies without a way out (kill -9).
  const server = await startSupervised({
    name: 'temporal dev server',
    command: options.cliPath,
    args: [
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
    onOutput: (text, stream) => (stream === 'stdout' ? log.debug(text.trim()) : log.warn(text.trim())),
  });
  await writeFile(pidFile, `${server.pid}\n`);
  void server.exited.then(async (code) => {
    log.info({ code, signal: server.child.signalCode }, 'temporal dev server exited');
    await rm(pidFile, { force: true });
  });

  const address = `127.0.0.1:${options.port}`;
  const timeoutMs = options.startTimeoutMs ?? 30_000;
  await readyOrStopped(
    server,
    waitUntil(server, `answering on ${address}`, () => temporalFrontendAnswers(address), timeoutMs),
    5_000,
  );
  return {
    address,
    uiUrl: `http://localhost:${options.uiPort}`,
    pid: server.pid,
    stop: () => server.stop(5_000),
  };
}

// The embedded Temporal dev server's tuning, for `npm start`, the tests and the benchmark alike. Its single history
// shard reads the transfer queue 20 times a second by default (a ≈50 ms floor under every new workflow); SQLite runs
// with its safest and slowest defaults; several task-queue partitions only add a tail on one machine.

export type DevServerTuning = Pick<
  TemporalConfig['devServer'],
  'transferPollRps' | 'sqliteWal' | 'taskQueuePartitions'
>;

/** `temporal server start-dev` arguments that apply the tuning. */
export function devServerTuningArgs(tuning: DevServerTuning): string[] {
  const dynamic = (key: string, value: number | boolean) => ['--dynamic-config-value', `${key}=${value}`];
  return [
    ...dynamic('history.transferProcessorMaxPollRPS', tuning.transferPollRps),
    // Every attribute is registered by the start-dev arguments, before any worker: no read needs the cache refreshed.
    ...dynamic('system.forceSearchAttributesCacheRefreshOnRead', false),
    ...dynamic('matching.numTaskqueueReadPartitions', tuning.taskQueuePartitions),
    ...dynamic('matching.numTaskqueueWritePartitions', tuning.taskQueuePartitions),
    ...(tuning.sqliteWal ? ['--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal'] : []),
  ];
}
