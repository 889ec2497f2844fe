// `npm start` as a user runs it, for the tests that start the whole service: a scratch DATA_DIR and free ports, the
// service started by the harness (harness/stacks/gateway-process.ts) and stopped after each test so one that failed
// half-way does not run into the next.
import { rm } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { type GatewayProcess, launchGatewayProcess } from '../../harness/stacks/gateway-process.ts';
import { scratchServiceEnv } from '../../harness/scratch-env.ts';

export { alive, processesUsing } from '../../harness/processes.ts';

export interface LaunchOptions {
  env?: Record<string, string>;
}

/** The embedded default on its own ports and DATA_DIR (`prefix` names the directory), with `extraEnv` on top. */
export function useNpmStart(prefix: string, extraEnv: Record<string, string> = {}) {
  const harness = { dataDir: '', env: {} as Record<string, string> };
  let running: GatewayProcess | undefined;

  const launch = async (options: LaunchOptions = {}): Promise<GatewayProcess> => {
    const started = await launchGatewayProcess({ name: 'npm start', env: { ...harness.env, ...options.env } });
    running = started;
    void started.exited.then(() => {
      if (running === started) running = undefined;
    });
    return started;
  };

  const startService = async (options: LaunchOptions = {}): Promise<GatewayProcess> => {
    const started = await launch(options);
    await started.up;
    return started;
  };

  const stopService = async (service: GatewayProcess): Promise<number | null> => {
    const code = await service.stop();
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
