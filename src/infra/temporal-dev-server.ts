// The Temporal CLI's dev server (SQLite under DATA_DIR, Web UI), run as a child process we own.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Connection } from '@temporalio/client';
import type { Logger } from '../logger.ts';

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
}

async function waitUntilServing(address: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`temporal dev server exited with code ${child.exitCode}`);
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

function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
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

export async function startTemporalDevServer(options: TemporalDevServerOptions): Promise<TemporalDevServer> {
  if (!existsSync(options.cliPath)) {
    throw new Error(
      `Temporal CLI not found at ${options.cliPath}: run \`node scripts/setup.mjs\` or set TEMPORAL_ADDRESS.`,
    );
  }
  const log = options.logger.child({ component: 'temporal-dev-server' });
  const dataDir = resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true });
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
      resolve(dataDir, 'temporal.db'),
      '--namespace',
      options.namespace,
      '--log-level',
      'warn',
    ],
    {
      // Its own process group: Ctrl-C must not kill it before the worker has drained; we stop it last.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout?.on('data', (chunk: Buffer) => log.debug(chunk.toString().trim()));
  child.stderr?.on('data', (chunk: Buffer) => log.warn(chunk.toString().trim()));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  // It runs in its own process group, so nothing else stops it if this process dies first (a crash, an exit
  // during start-up): kill it on the way out unless stop() already did.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  void exited.then(() => process.removeListener('exit', killOnExit));
  child.once('exit', (code, signal) => log.info({ code, signal }, 'temporal dev server exited'));

  const address = `127.0.0.1:${options.port}`;
  try {
    await waitUntilServing(address, child, options.startTimeoutMs ?? 30_000);
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
