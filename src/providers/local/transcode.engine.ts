// Local video-to-video: the caller's video as H.264/AAC MP4 at the requested height (aspect ratio kept).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type LocalEngine, ProviderRefusal } from '../types.ts';
import { runFfmpeg, withWorkDir } from './ffmpeg.ts';

const heights: Record<string, number> = { '480p': 480, '720p': 720, '1080p': 1080 };

export const transcodeEngine: LocalEngine = async (request, model, context) => {
  const source = request.video_url ?? request.videos?.[0];
  if (!source) throw new ProviderRefusal('video-to-video needs video_url');
  const height = heights[request.resolution ?? '720p'] ?? 720;
  const { data } = await context.fetchInput(source);
  // Written where the activity stores it from, never read into memory.
  const output = join(context.outputDir, 'out.mp4');
  return withWorkDir(async (dir) => {
    await writeFile(join(dir, 'input'), data);
    await runFfmpeg(
      [
        '-i',
        join(dir, 'input'),
        '-vf',
        `scale=-2:${height}`,
        '-c:v',
        'libx264',
        '-preset',
        'veryfast',
        '-pix_fmt',
        'yuv420p',
        '-c:a',
        'aac',
        '-b:a',
        '128k',
        '-movflags',
        '+faststart',
        output,
      ],
      model.timeout_seconds * 1000,
      context.signal,
    );
    return { files: [{ path: output, extension: 'mp4', contentType: 'video/mp4' }] };
  });
};
