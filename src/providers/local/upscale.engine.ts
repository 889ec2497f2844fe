// Local upscale: Lanczos resampling with sharp (libvips). Classical resizing, honestly described in the catalog.
import sharp from 'sharp';
import { type LocalEngine, ProviderRefusal } from '../types.ts';

const maxOutputPixels = 64_000_000;

export const upscaleEngine: LocalEngine = async (request, _model, context) => {
  const source = request.image_url ?? request.images?.[0];
  if (!source) throw new ProviderRefusal('upscale needs image_url');
  const { data } = await context.fetchInput(source);
  const factor = request.resolution === '4x' ? 4 : 2;
  let metadata;
  try {
    metadata = await sharp(data).metadata();
  } catch {
    throw new ProviderRefusal('the input is not an image this server can read (PNG, JPEG, WebP, GIF, TIFF, AVIF)');
  }
  const width = (metadata.width ?? 0) * factor;
  const height = (metadata.height ?? 0) * factor;
  if (width * height > maxOutputPixels)
    throw new ProviderRefusal(`the upscaled image would exceed ${maxOutputPixels / 1_000_000} megapixels`);
  const output = await sharp(data).resize(width, height, { kernel: 'lanczos3' }).png().toBuffer();
  return { files: [{ data: output, extension: 'png', contentType: 'image/png' }] };
};
