// Local image-to-video: a slow zoom into the centre of the caller's image (the "Ken Burns" effect), as an H.264
// MP4 of the requested length and aspect ratio. Motion from a still, not a generative model.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { defaultDuration } from '../../catalog/pricing.ts';
import { type LocalEngine, ProviderRefusal } from '../types.ts';
import { runFfmpeg, withWorkDir } from './ffmpeg.ts';

const frameSizes: Record<string, [number, number]> = { '16:9': [1280, 720], '9:16': [720, 1280], '1:1': [720, 720] };
const fps = 25;

export const kenBurnsEngine: LocalEngine = async (request, model, context) => {
  const source = request.image_url ?? request.images?.[0];
  if (!source) throw new ProviderRefusal('image-to-video needs image_url');
  const [width, height] = frameSizes[request.aspect_ratio ?? '16:9'] ?? frameSizes['16:9']!;
  const seconds = request.duration ?? defaultDuration(model) ?? 5;
  const { data } = await context.fetchInput(source);
  // Written where the activity stores it from, never read into memory.
  const output = join(context.outputDir, 'out.mp4');
  return withWorkDir(async (dir) => {
    // sharp reads more formats than this FFmpeg build (WebP, AVIF, HEIC) and fills the frame at twice its size,
    // so the zoom has pixels to spare.
    let frame: Buffer;
    try {
      frame = await sharp(data)
        .resize(width * 2, height * 2, { fit: 'cover' })
        .png()
        .toBuffer();
    } catch {
      throw new ProviderRefusal('The input is not an image this server can read.');
    }
    await writeFile(join(dir, 'frame.png'), frame);
    const frames = seconds * fps;
    context.progress?.({ stage: 'rendering', percent: 0 });
    await runFfmpeg(
      [
        '-loop',
        '1',
        '-i',
        join(dir, 'frame.png'),
        '-vf',
        `zoompan=z='min(zoom+${(0.25 / frames).toFixed(6)},1.25)':d=${frames}:x='iw/2-(iw/zoom/2)':y='ih/2-(ih/zoom/2)':s=${width}x${height}:fps=${fps}`,
        '-frames:v',
        String(frames),
        '-c:v',
        'libx264',
        '-preset',
        'veryfast',
        '-pix_fmt',
        'yuv420p',
        '-movflags',
        '+faststart',
        output,
      ],
      model.timeout_seconds * 1000,
      context.signal,
      (written) =>
        context.progress?.({ stage: 'rendering', percent: Math.min(99, Math.floor((written / frames) * 100)) }),
    );
    return { files: [{ path: output, extension: 'mp4', contentType: 'video/mp4' }] };
  });
};
