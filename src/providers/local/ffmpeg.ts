// FFmpeg from the @ffmpeg-installer package (a static build shipped through npm, so nothing downloads at run
// time). Every engine works in its own temporary directory, removed afterwards.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProviderRefusal } from '../types.ts';

const require = createRequire(import.meta.url);
export const ffmpegPath: string = require('@ffmpeg-installer/ffmpeg').path;

/**
 * Runs ffmpeg; a non-zero exit means it could not process the caller's input (a permanent refusal). Returns
 * ffmpeg's log, which carries what the input was found to contain. `onFrames` hears the frames written so far, from
 * the stats line ffmpeg prints about twice a second.
 */
export function runFfmpeg(
  args: string[],
  timeoutMs: number,
  signal?: AbortSignal,
  onFrames?: (frames: number) => void,
): Promise<string> {
  return new Promise((resolve, reject) => {
    // Local files only: a playlist among the inputs must not make FFmpeg fetch URLs past the input guard.
    const child = spawn(ffmpegPath, ['-hide_banner', '-nostdin', '-y', '-protocol_whitelist', 'file', ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      signal,
      killSignal: 'SIGKILL',
    });
    let log = '';
    child.stderr.on('data', (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-20_000);
      const frames = [...chunk.toString().matchAll(/frame=\s*(\d+)/g)].at(-1)?.[1];
      if (frames !== undefined) onFrames?.(Number(frames));
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    // An abort (the task cancelled, the worker stopping) kills FFmpeg through `signal` and lands here.
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(log);
      else if (signal === 'SIGKILL') reject(new Error(`ffmpeg did not finish within ${timeoutMs} ms`));
      else
        reject(new ProviderRefusal('The input could not be processed: it is not a media file this server can read.'));
    });
  });
}

export async function withWorkDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-engine-'));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
