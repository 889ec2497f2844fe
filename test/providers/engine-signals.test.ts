// An FFmpeg child of a local engine that a signal stops (a terminal's Ctrl-C, the OOM killer, an operator) did not find
// the caller's input unreadable: that is our failure, retried, never a refusal of the input (issue 25.1). The child runs
// in a process group of its own, so a Ctrl-C to the terminal's group does not reach it; an abort still kills it.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import { runFfmpeg } from '../../src/providers/local/ffmpeg.ts';
import { localEngines } from '../../src/providers/local/index.ts';
import { ProviderRefusal } from '../../src/providers/types.ts';
import { alive } from '../../harness/processes.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engine-signals-'));
  await writeFile(join(dir, 'noise.bin'), Buffer.from('this is not a media file at all'.repeat(50)));
});
afterAll(() => rm(dir, { recursive: true, force: true }));
// A test that failed must not leave its FFmpeg running into the next one's count.
afterEach(() => {
  for (const { pid } of ffmpegChildren()) process.kill(pid, 'SIGKILL');
});

/** The FFmpeg processes this process started, with their process group. */
function ffmpegChildren(): { pid: number; pgid: number }[] {
  return execFileSync('ps', ['-eo', 'pid=,ppid=,pgid=,comm='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, ppid, , comm]) => Number(ppid) === process.pid && comm === 'ffmpeg')
    .map(([pid, , pgid]) => ({ pid: Number(pid), pgid: Number(pgid) }));
}

async function runningChild(): Promise<{ pid: number; pgid: number }> {
  await expect.poll(() => ffmpegChildren().length, { timeout: 20_000, interval: 50 }).toBe(1);
  return ffmpegChildren()[0]!;
}

// A render that lasts a minute unless stopped: a test pattern read at its own pace, written nowhere.
const slowRender = ['-re', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=25', '-t', '60', '-f', 'null', '-'];

describe('an engine child stopped by a signal', () => {
  it.each(['SIGINT', 'SIGTERM', 'SIGKILL'] as const)(
    '%s to FFmpeg while it renders: a retryable failure, not a refusal',
    async (signal) => {
      const rendering = runFfmpeg(slowRender, 120_000);
      const outcome = rendering.catch((error: unknown) => error);
      process.kill((await runningChild()).pid, signal);
      const error = await outcome;
      expect(error).not.toBeInstanceOf(ProviderRefusal);
      expect(error).toMatchObject({ name: 'FfmpegFailure', message: expect.stringMatching(/stopped by/) });
    },
    60_000,
  );

  it('the ken-burns engine, its FFmpeg interrupted mid-render: a retryable failure, not a refusal', async () => {
    const model = loadCatalog().get('local/ken-burns')!;
    const png = await sharp({ create: { width: 640, height: 360, channels: 3, background: '#3366cc' } })
      .png()
      .toBuffer();
    const rendering = localEngines['ffmpeg-zoompan']!(
      { type: 'image-to-video', model: model.id, image_url: 'https://inputs.example/a.png', duration: 10 },
      model,
      {
        fetchInput: async () => ({ data: png, contentType: 'image/png' }),
        signal: new AbortController().signal,
        outputDir: dir,
      },
    );
    const outcome = rendering.catch((error: unknown) => error);
    process.kill((await runningChild()).pid, 'SIGINT');
    const error = await outcome;
    expect(error).not.toBeInstanceOf(ProviderRefusal);
    expect(error).toMatchObject({ name: 'FfmpegFailure' });
  }, 60_000);

  it('runs in a process group of its own: a Ctrl-C to the terminal group (ours) does not reach it', async () => {
    const controller = new AbortController();
    const outcome = runFfmpeg(slowRender, 120_000, controller.signal).catch((error: unknown) => error);
    const child = await runningChild();
    const ourGroup = Number(execFileSync('ps', ['-o', 'pgid=', '-p', String(process.pid)], { encoding: 'utf8' }));
    controller.abort();
    await outcome;
    expect(child.pgid).toBe(child.pid);
    expect(child.pgid).not.toBe(ourGroup);
  }, 60_000);

  it('an abort still kills it, its whole group, at once', async () => {
    const controller = new AbortController();
    const outcome = runFfmpeg(slowRender, 120_000, controller.signal).catch((error: unknown) => error);
    const child = await runningChild();
    controller.abort();
    expect(await outcome).toMatchObject({ name: 'AbortError' });
    expect(alive(child.pid)).toBe(false);
    expect(ffmpegChildren()).toEqual([]);
  }, 60_000);

  it('our timeout kills it: a retryable failure too', async () => {
    const error = await runFfmpeg(slowRender, 1_000).catch((failure: unknown) => failure);
    expect(error).toMatchObject({
      name: 'FfmpegFailure',
      message: expect.stringMatching(/did not finish within 1000 ms/),
    });
    expect(ffmpegChildren()).toEqual([]);
  }, 60_000);

  it('an input FFmpeg cannot read is still refused', async () => {
    const error = await runFfmpeg(['-i', join(dir, 'noise.bin'), join(dir, 'out.mp4')], 60_000).catch(
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(ProviderRefusal);
    expect((error as Error).message).toMatch(/not a media file this server can read/);
  }, 60_000);
});
