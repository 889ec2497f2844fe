// Ctrl-C in the terminal while local engines render (issue 25.1): the terminal sends SIGINT to the whole process
// group of `npm start`. The FFmpeg children must not die of it before the worker has drained, and a render cut short
// by the stop is ours to retry, never the caller's input refused: after a second start every task completes.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { alive, useNpmStart } from '../helpers/npm-start.ts';
import { usePngInputServer } from '../helpers/png-input-server.ts';

// The input comes from this machine's PNG server.
const npmStart = useNpmStart('gateway-e2e-ctrlc-', { ALLOW_PRIVATE_INPUT_URLS: 'true' });

const inputs = usePngInputServer({ width: 640, height: 360 });

/** `npm start` as a terminal runs it: a process group of its own (as the harness starts every gateway process). */
const startService = () => npmStart.startService();

const api = async (path: string, init?: { method?: string; key?: string; body?: unknown }) => {
  const response = await npmStart.api(path, init);
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
