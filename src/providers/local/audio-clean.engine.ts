// Local audio-to-audio: FFT denoise, then EBU R128 loudness normalisation to -16 LUFS; MP3 at 44.1 kHz.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type LocalEngine, ProviderRefusal } from '../types.ts';
import { runFfmpeg, withWorkDir } from './ffmpeg.ts';

export const audioCleanEngine: LocalEngine = async (request, model, context) => {
  if (!request.audio_url) throw new ProviderRefusal('audio-to-audio needs audio_url');
  const { data } = await context.fetchInput(request.audio_url);
  // Written where the activity stores it from, never read into memory.
  const output = join(context.outputDir, 'out.mp3');
  return withWorkDir(async (dir) => {
    await writeFile(join(dir, 'input'), data);
    await runFfmpeg(
      [
        '-i',
        join(dir, 'input'),
        '-vn',
        '-af',
        'afftdn,loudnorm=I=-16:TP=-1.5:LRA=11',
        '-ar',
        '44100',
        '-c:a',
        'libmp3lame',
        '-b:a',
        '192k',
        output,
      ],
      model.timeout_seconds * 1000,
      context.signal,
    );
    return { files: [{ path: output, extension: 'mp3', contentType: 'audio/mpeg' }] };
  });
};
