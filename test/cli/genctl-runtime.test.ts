// genctl finds the running service through DATA_DIR/runtime.json (written by `npm start`) when the environment
// names no database or Temporal, instead of assuming the default ports.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRuntimeFile, runtimeFile, writeRuntimeFile } from '../../src/runtime-file.ts';
import { useAppWithDatabase } from '../helpers/app.ts';
import { runGenctl } from '../helpers/genctl.ts';

const stack = useAppWithDatabase();
let dataDir: string;
// Ports where nothing listens: the defaults genctl would otherwise assume.
const unusedDefaults = { EMBEDDED_POSTGRES_PORT: '9', TEMPORAL_DEV_SERVER_PORT: '9' };
const genctl = (...args: string[]) => runGenctl({ DATA_DIR: dataDir, ...unusedDefaults }, args);

beforeAll(async () => {
  expect(process.env.DATABASE_URL, 'this test needs an environment without DATABASE_URL').toBeUndefined();
  expect(process.env.TEMPORAL_ADDRESS).toBeUndefined();
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-runtime-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('genctl and DATA_DIR/runtime.json', () => {
  it('reaches the database the running service announced', async () => {
    await writeRuntimeFile(dataDir, {
      pid: process.pid,
      role: 'all',
      apiUrl: stack.app.url,
      databaseUrl: stack.database.url,
      temporalAddress: '127.0.0.1:17233',
      temporalNamespace: 'default',
      temporalUiUrl: 'http://localhost:18233',
    });
    const created = await genctl('developers', 'create', '--name', 'Runtime Labs', '--json');
    expect(created.code, created.stderr).toBe(0);
    expect(created.json.developer_id).toMatch(/^dev_/);

    const status = await genctl('status', '--json');
    expect(status.json).toEqual({
      file: runtimeFile(dataDir),
      pid: process.pid,
      api_url: stack.app.url,
      database_url: expect.stringMatching(/^postgres(ql)?:\/\/[^:]+:\*\*\*@/),
      temporal_address: '127.0.0.1:17233',
      temporal_namespace: 'default',
      temporal_ui_url: 'http://localhost:18233',
    });
    expect((await genctl('status')).stdout).toMatch(/^Temporal {6}127\.0\.0\.1:17233 \(namespace default\)$/m);
  });

  it('lets the environment say otherwise', async () => {
    const status = await runGenctl({ DATA_DIR: dataDir, TEMPORAL_ADDRESS: 'temporal.internal:7233' }, [
      'status',
      '--json',
    ]);
    expect(status.json.temporal_address).toBe('temporal.internal:7233');
  });

  it('ignores a file whose process is gone, and falls back to the defaults', async () => {
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    await writeRuntimeFile(dataDir, {
      pid: gone,
      role: 'all',
      databaseUrl: stack.database.url,
      temporalAddress: '127.0.0.1:17233',
      temporalNamespace: 'default',
    });
    expect(await readRuntimeFile(dataDir)).toBeUndefined();
    const status = await genctl('status', '--json');
    expect(status.json).toMatchObject({ file: null, temporal_address: '127.0.0.1:9' });
    expect(status.json.database_url).toMatch(/@127\.0\.0\.1:9\//);
  });

  it.each([
    ['tasks', 'list'],
    ['developers', 'create', '--name', 'Nobody'],
  ])('says no service runs, without Prisma text, when none is found (genctl %s %s)', async (...args) => {
    const empty = await mkdtemp(join(tmpdir(), 'gateway-no-service-'));
    try {
      const result = await runGenctl({ DATA_DIR: empty, ...unusedDefaults }, args);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        `genctl: no running service found for DATA_DIR ${empty} (start it with \`npm start\`, or set DATABASE_URL to reach a database)\n`,
      );
      const json = await runGenctl({ DATA_DIR: empty, ...unusedDefaults }, [...args, '--json']);
      expect(json.code).toBe(1);
      expect(JSON.parse(json.stderr)).toEqual({
        error: expect.stringMatching(/^no running service found for DATA_DIR/),
      });
      expect(result.stderr + json.stderr).not.toMatch(/prisma|invocation|\.ts:\d+|127\.0\.0\.1:9/i);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
