// Ctrl-C in the terminal while local engines render (issue 25.1): the terminal sends SIGINT to the whole process
// group of `npm start`. The FFmpeg children must not die of it before the worker has drained, and a render cut short
// by the stop is ours to retry, never the caller's input refused: after a second start every task completes.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { usePngInputServer } from '../helpers/png-input-server.ts';
import { freePort } from '../helpers/ports.ts';

const root = join(import.meta.dirname, '..', '..');
let dataDir: string;
let env: Record<string, string>;
let running: ChildProcess | undefined;

const inputs = usePngInputServer({ width: 640, height: 360 });

interface Launched {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** `npm start` as a terminal runs it: a process group of its own (`detached`), as a shell's job has. */
async function startService(): Promise<Launched> {
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  running = child;
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  void exited.then(() => {
    if (running === child) running = undefined;
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not up within 120 s:\n${output}`)), 120_000);
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
  return { child, output: () => output, exited };
}

const api = async (path: string, init?: { method?: string; key?: string; body?: unknown }) => {
  const response = await fetch(`http://127.0.0.1:${env.PORT}${path}`, {
    method: init?.method,
    headers: {
      'content-type': 'application/json',
      ...(init?.key ? { authorization: `Bearer ${init.key}` } : {}),
    },
    body: init?.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: response.status, body: (await response.json()) as any };
};

/** The FFmpeg processes the service started (its direct children). */
function ffmpegChildrenOf(pid: number): number[] {
  return execFileSync('ps', ['-eo', 'pid=,ppid=,comm='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, ppid, comm]) => Number(ppid) === pid && comm === 'ffmpeg')
    .map(([child]) => Number(child));
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-e2e-ctrlc-'));
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
    BASE_RPC_URL: '',
    POLYGON_RPC_URL: '',
    ETHEREUM_RPC_URL: '',
    // The input comes from this machine's PNG server.
    ALLOW_PRIVATE_INPUT_URLS: 'true',
  };
});

// A test that failed half-way must not leave its service running.
afterEach(async () => {
  if (!running) return;
  const child = running;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
});

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('Ctrl-C while local engines render', () => {
  it('SIGINT to the process group: no task fails as the caller’s fault; after a restart every task completes', async () => {
    const first = await startService();
    const registered = await api('/api/v1/agents/register', { method: 'POST', body: { agent_name: 'ctrl-c' } });
    expect(registered.status, JSON.stringify(registered.body)).toBeLessThan(300);
    const key = registered.body.api_key as string;

    const taskIds: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const created = await api('/api/v1/generations', {
        method: 'POST',
        key,
        body: {
          type: 'image-to-video',
          model: 'local/ken-burns',
          image_url: `${inputs.url()}/photo-${index}.png`,
          duration: 10,
        },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(202);
      taskIds.push(created.body.id);
    }
    const read = async (id: string) => (await api(`/api/v1/generations/${id}`, { key })).body;

    // At least one renders: its FFmpeg is running when the terminal's Ctrl-C comes.
    await expect
      .poll(async () => (await Promise.all(taskIds.map(read))).some((task) => task.progress?.stage === 'rendering'), {
        timeout: 90_000,
        interval: 250,
      })
      .toBe(true);
    const renderers = ffmpegChildrenOf(first.child.pid!);
    expect(renderers.length).toBeGreaterThan(0);

    process.kill(-first.child.pid!, 'SIGINT');
    expect(await first.exited, first.output()).toBe(0);
    // No render outlives the service.
    await expect.poll(() => renderers.filter(alive), { timeout: 10_000, interval: 200 }).toEqual([]);

    const second = await startService();
    const ended = await Promise.all(
      taskIds.map(async (id) => {
        let task: any;
        await expect
          .poll(
            async () => {
              task = await read(id);
              return task.status;
            },
            { timeout: 240_000, interval: 500 },
          )
          .toMatch(/^(completed|failed)$/);
        return task;
      }),
    );
    console.log(`after Ctrl-C and a restart: ${JSON.stringify(ended.map((task) => [task.status, task.error]))}`);
    for (const task of ended) expect(task, JSON.stringify(task)).toMatchObject({ status: 'completed' });

    const exited = second.exited;
    second.child.kill('SIGTERM');
    expect(await exited, second.output()).toBe(0);
  }, 600_000);
});
