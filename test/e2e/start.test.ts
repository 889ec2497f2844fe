// `npm start` as a user runs it (node scripts/start.mjs is what the npm script runs): embedded PostgreSQL,
// the Temporal dev server, API and worker come up; Temporal going away shows in /healthz; SIGTERM leaves no
// process behind; a second start keeps the data.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiEndpoints } from '../../src/api/routes/index.ts';
import { pingWorkflow } from '../../workflows/index.ts';
import { freePort } from '../helpers/ports.ts';

const root = join(import.meta.dirname, '..', '..');
let dataDir: string;
let env: Record<string, string>;
let running: ChildProcess | undefined;

/** Processes whose command line names our data directory: PostgreSQL (-D) and the dev server (--db-filename). */
function processesUsing(dir: string): string[] {
  const lines = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).split('\n');
  return lines.filter((line) => line.includes(dir) && !line.includes('ps -eo'));
}

async function startService(): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running = child;
  let output = '';
  child.stdout!.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    output += chunk;
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not up within 90 s:\n${output}`)), 90_000);
    child.stdout!.on('data', () => {
      if (output.includes('Press Ctrl-C to stop.')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}:\n${output}`));
    });
  });
  return { child, output: () => output };
}

async function stopService(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  const code = await exited;
  running = undefined;
  return code;
}

const api = (path: string) => fetch(`http://127.0.0.1:${env.PORT}${path}`);

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-e2e-'));
  await chmod(dataDir, 0o755);
  env = {
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    EMBEDDED_POSTGRES_PORT: String(await freePort()),
    TEMPORAL_DEV_SERVER_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
    DATABASE_URL: '',
    TEMPORAL_ADDRESS: '',
  };
});

afterAll(async () => {
  if (running) await stopService(running);
  await rm(dataDir, { recursive: true, force: true });
});

describe('npm start', () => {
  it('runs the whole service, reports outages, stops cleanly and keeps its data', async () => {
    const first = await startService();
    expect(first.output()).toContain(`Temporal UI   http://localhost:${env.TEMPORAL_UI_PORT}`);
    expect(first.output()).toContain(`Docs          http://localhost:${env.PORT}/docs`);
    expect(processesUsing(dataDir).length).toBeGreaterThanOrEqual(2);

    expect((await api('/healthz')).status).toBe(200);
    const document = (await (await api('/api/v1/openapi.json')).json()) as any;
    expect(Object.keys(document.paths)).toHaveLength(new Set(apiEndpoints.map((endpoint) => endpoint.path)).size);
    expect((await api('/docs')).status).toBe(200);
    const ui = await fetch(`http://127.0.0.1:${env.TEMPORAL_UI_PORT}/`);
    expect(ui.status).toBe(200);

    // The in-process worker serves workflows, and data lands in both stores.
    const connection = await Connection.connect({ address: `127.0.0.1:${env.TEMPORAL_DEV_SERVER_PORT}` });
    const client = new Client({ connection });
    const result = await client.workflow.execute(pingWorkflow, {
      taskQueue: 'gateway',
      workflowId: 'ping-e2e',
      args: [{}],
    });
    expect(result.database).toMatch(/^PostgreSQL/);
    await connection.close();
    const databaseUrl = `postgresql://gateway:gateway@127.0.0.1:${env.EMBEDDED_POSTGRES_PORT}/gateway`;
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    await db.query(`INSERT INTO accounts (id, kind, name, updated_at) VALUES ('dev_keep', 'developer', 'kept', now())`);
    await db.end();

    // Temporal goes away: the API stays up and says what is down.
    const devServer = processesUsing(dataDir).find((line) => line.includes('start-dev'))!;
    process.kill(Number(devServer.trim().split(/\s+/)[0]), 'SIGKILL');
    const degraded = await api('/healthz');
    expect(degraded.status).toBe(503);
    expect(((await degraded.json()) as any).message).toMatch(/^Down: temporal/);
    expect(await stopService(first.child), first.output()).toBe(0);
    expect(processesUsing(dataDir)).toEqual([]);

    // A second start recovers, with the data of the first.
    const second = await startService();
    expect((await api('/healthz')).status).toBe(200);
    const again = new pg.Client({ connectionString: databaseUrl });
    await again.connect();
    const { rows } = await again.query(`SELECT name FROM accounts WHERE id = 'dev_keep'`);
    await again.end();
    expect(rows).toEqual([{ name: 'kept' }]);
    const reconnection = await Connection.connect({ address: `127.0.0.1:${env.TEMPORAL_DEV_SERVER_PORT}` });
    const description = await new Client({ connection: reconnection }).workflow.getHandle('ping-e2e').describe();
    expect(description.status.name).toBe('COMPLETED');
    await reconnection.close();

    expect(await stopService(second.child), second.output()).toBe(0);
    expect(processesUsing(dataDir)).toEqual([]);
  }, 240_000);
});
