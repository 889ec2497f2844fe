// How long a media file plays, in seconds, from its bytes: ffprobe's reading of the container, and the timestamps of
// the packets themselves (FFmpeg demuxing without decoding), whichever is longer. A header that understates the
// length (an edited MP3 frame count) does not shorten what the packets say an upstream will play and bill.
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { runEngineProcess } from '../infra/engine-process.ts';
import { ffmpegPath, withWorkDir } from './local/ffmpeg.ts';

const require = createRequire(import.meta.url);
export const ffprobePath: string = require('@ffprobe-installer/ffprobe').path;

export class MediaLengthError extends Error {
  override name = 'MediaLengthError';
}

/**
 * Runs a tool on local files only (a playlist must not make it fetch URLs), in a process group of its own (a Ctrl-C
 * in the terminal does not reach it); stdout, or null if it said it could not read the file. A tool stopped by a
 * signal (FFmpeg exits 255 on one it catches) did not read anything: that is our failure, thrown as a plain Error.
 */
async function run(path: string, args: string[], deadlineMs: number): Promise<string | null> {
  let out = '';
  const exit = await runEngineProcess(path, ['-hide_banner', '-protocol_whitelist', 'file', ...args], {
    timeoutMs: Math.max(deadlineMs - Date.now(), 1),
    onStdout: (chunk) => {
      out = (out + chunk.toString()).slice(-20_000);
    },
  });
  if (exit.timedOut) throw new MediaLengthError('it could not be measured in time');
  if (exit.signal || exit.code === 255)
    throw new Error(`${basename(path)} was stopped by ${exit.signal ?? 'a signal'}`);
  return exit.code === 0 ? out : null;
}

/** The container's own duration (ffprobe). */
async function containerSeconds(file: string, deadlineMs: number): Promise<number | undefined> {
  const out = await run(
    ffprobePath,
    ['-v', 'error', '-show_entries', 'format=duration', '-of', 'json', file],
    deadlineMs,
  );
  const duration = Number((out && (JSON.parse(out) as { format?: { duration?: string } }).format?.duration) ?? NaN);
  return Number.isFinite(duration) ? duration : undefined;
}

/** Where the audio and (moving) video packets end: FFmpeg copies them to nowhere and reports the last timestamp. */
async function packetSeconds(file: string, deadlineMs: number): Promise<number | undefined> {
  const args = ['-nostdin', '-v', 'error', '-i', file, '-map', '0:a?', '-map', '0:V?', '-c', 'copy', '-f', 'null', '-'];
  const out = await run(ffmpegPath, [...args, '-progress', 'pipe:1', '-nostats'], deadlineMs);
  const ends = [...(out ?? '').matchAll(/^out_time_us=(\d+)$/gm)].map((match) => Number(match[1]) / 1e6);
  return ends.at(-1);
}

/** Seconds of playback of `data`; refuses bytes that are not audio or video this server can read. */
export async function mediaSeconds(data: Buffer, deadlineMs: number): Promise<number> {
  return withWorkDir(async (dir) => {
    const file = join(dir, 'input');
    await writeFile(file, data);
    const [container, packets] = await Promise.all([
      containerSeconds(file, deadlineMs),
      packetSeconds(file, deadlineMs),
    ]);
    const seconds = Math.max(container ?? 0, packets ?? 0);
    if (!(seconds > 0)) throw new MediaLengthError('it is not an audio or video file this server can read');
    return seconds;
  });
}
