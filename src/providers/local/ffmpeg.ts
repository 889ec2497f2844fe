// FFmpeg from the @ffmpeg-installer package (a static build shipped through npm, so nothing downloads at run
// time). Every engine works in its own temporary directory, removed afterwards.
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runEngineProcess } from '../../infra/engine-process.ts';
import { ProviderRefusal } from '../types.ts';

const require = createRequire(import.meta.url);
export const ffmpegPath: string = require('@ffmpeg-installer/ffmpeg').path;

/**
 * What FFmpeg prints when the input itself cannot be read or holds nothing to work on: the only failures that are the
 * caller's. Anything else (a signal, our timeout, a failure to start, an exit with no such line) is ours, retried.
 */
const unreadableInput = [
  /Invalid data found when processing input/,
  /could not find codec parameters/i,
  /does not contain any stream/,
  /matches no streams/,
  /Error while decoding stream/,
  /Error opening input/,
  /moov atom not found/,
];

/** An FFmpeg run that failed for reasons of ours (retryable), with the log's last line for the operator. */
export class FfmpegFailure extends Error {
  override name = 'FfmpegFailure';
}

/**
 * Runs ffmpeg in a process group of its own (src/infra/engine-process.ts: a Ctrl-C in the terminal does not reach
 * it). Refuses the input (ProviderRefusal) only on an exit whose log says the input is unreadable; a process stopped
 * by a signal (FFmpeg exits 255 on one it catches), our timeout or any other failure is an FfmpegFailure, retried.
 * Returns ffmpeg's log, which carries what the input was found to contain. `onFrames` hears the frames written so
 * far, from the stats line ffmpeg prints about twice a second.
 */
export async function runFfmpeg(
  args: string[],
  timeoutMs: number,
  signal?: AbortSignal,
  onFrames?: (frames: number) => void,
): Promise<string> {
  let log = '';
  // Local files only: a playlist among the inputs must not make FFmpeg fetch URLs past the input guard.
  const exit = await runEngineProcess(
    ffmpegPath,
    ['-hide_banner', '-nostdin', '-y', '-protocol_whitelist', 'file', ...args],
    {
      timeoutMs,
      signal,
      onStderr: (chunk) => {
        log = (log + chunk.toString()).slice(-20_000);
        const frames = [...chunk.toString().matchAll(/frame=\s*(\d+)/g)].at(-1)?.[1];
        if (frames !== undefined) onFrames?.(Number(frames));
      },
    },
  );
  if (exit.code === 0) return log;
  if (exit.timedOut) throw new FfmpegFailure(`ffmpeg did not finish within ${timeoutMs} ms`);
  if (exit.signal) throw new FfmpegFailure(`ffmpeg was stopped by ${exit.signal}`);
  const received = /received signal (\d+)/.exec(log);
  if (exit.code === 255 || received)
    throw new FfmpegFailure(`ffmpeg was stopped by signal ${received?.[1] ?? '(exit 255)'}`);
  if (unreadableInput.some((pattern) => pattern.test(log)))
    throw new ProviderRefusal('The input could not be processed: it is not a media file this server can read.');
  const lastLine = log.trim().split('\n').at(-1) ?? '';
  throw new FfmpegFailure(`ffmpeg failed (exit ${exit.code}): ${lastLine}`);
}

export async function withWorkDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-engine-'));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
