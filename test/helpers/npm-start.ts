// `npm start` as a user runs it, for the tests that start the whole service: a scratch DATA_DIR and free ports, the
// service launched as a terminal would (with `detached`, in a process group of its own, as a shell's job is), and
// stopped after each test so one that failed half-way does not run into the next.
import { type ChildProcess, spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { stopWithParent, untilBanner } from '../../harness/processes.ts';
import { scratchServiceEnv } from '../../harness/scratch-env.ts';

export { alive, processesUsing } from '../../harness/processes.ts';

const root = join(import.meta.dirname, '..', '..');

export interface Launched {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

export interface LaunchOptions {
  env?: Record<string, string>;
  detached?: boolean;
}

/** The embedded default on its own ports and DATA_DIR (`prefix` names the directory), with `extraEnv` on top. */
export function useNpmStart(prefix: string, extraEnv: Record<string, string> = {}) {
  const harness = { dataDir: '', env: {} as Record<string, string> };
  let running: ChildProcess | undefined;

  const launch = (options: LaunchOptions = {}): Launched => {
    const child = spawn(process.execPath, ['scripts/start.mjs'], {
      cwd: root,
      env: { ...process.env, ...harness.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: options.detached,
    });
    running = child;
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    void exited.then(() => {
      if (running === child) running = undefined;
    });
    stopWithParent(child, exited);
    return { child, output: () => output, exited };
  };

  const startService = async (options: LaunchOptions = {}): Promise<Launched> => {
    const launched = launch(options);
    await untilBanner(launched.child, launched.output, 120_000);
    return launched;
  };

  const stopService = async (child: ChildProcess): Promise<number | null> => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    const code = await exited;
    running = undefined;
    return code;
  };

  const api = (path: string, init?: { method?: string; key?: string; body?: unknown }) =>
    fetch(`http://127.0.0.1:${harness.env.PORT}${path}`, {
      method: init?.method,
      headers: {
        'content-type': 'application/json',
        ...(init?.key ? { authorization: `Bearer ${init.key}` } : {}),
      },
      body: init?.body === undefined ? undefined : JSON.stringify(init.body),
    });

  beforeAll(async () => {
    harness.env = { ...(await scratchServiceEnv(prefix, ['TEMPORAL_DEV_SERVER_PORT'])), ...extraEnv };
    harness.dataDir = harness.env.DATA_DIR!;
  });

  afterEach(async () => {
    if (running) await stopService(running);
  });

  afterAll(async () => {
    await rm(harness.dataDir, { recursive: true, force: true });
  });

  return Object.assign(harness, { launch, startService, stopService, api });
}
