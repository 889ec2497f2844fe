// OpenAI's `size` (WIDTHxHEIGHT) and a video's `seconds`, as the gateway's fields the model takes: a resolution it
// lists (`1024x1024`, or `720p` for a 1280x720 video), the aspect ratio of the size where it lists ratios, and a
// duration it offers. What the model does not offer is a 400 naming the OpenAI field and what the model offers.
import type { CatalogModel } from '../../catalog/catalog.ts';
import { ApiError } from '../errors.ts';

const refused = (param: string, value: string, model: CatalogModel, offered: string[]) =>
  new ApiError(
    'validation_error',
    `Invalid body: ${param}: ${model.id} does not offer ${value}; it offers ${offered.join(', ')}.`,
  );

const greatestDivisor = (a: number, b: number): number => (b === 0 ? a : greatestDivisor(b, a % b));

/** The gateway's resolution and aspect ratio for `size`, where the model offers either (an unknown model: both). */
export function sizeFields(size: string | undefined, model: CatalogModel | undefined): Record<string, string> {
  if (!size) return {};
  const [width, height] = size.split('x').map(Number) as [number, number];
  const divisor = greatestDivisor(width, height);
  const ratio = `${width / divisor}:${height / divisor}`;
  if (!model) return { aspect_ratio: ratio };
  const { resolutions, aspect_ratios: ratios } = model.capabilities;
  const resolution = [size, `${Math.min(width, height)}p`].find((named) => resolutions?.includes(named));
  if (resolutions && !resolution) throw refused('size', size, model, resolutions);
  if (!resolutions && ratios && !ratios.includes(ratio))
    throw refused(
      'size',
      `${size} (${ratio})`,
      model,
      ratios.map((offered) => `${offered} sizes`),
    );
  return {
    ...(resolution ? { resolution } : {}),
    ...(ratios?.includes(ratio) ? { aspect_ratio: ratio } : {}),
  };
}

/** A video's `seconds` as a duration the model offers. */
export function durationField(seconds: string | undefined, model: CatalogModel | undefined): { duration?: number } {
  if (seconds === undefined) return {};
  const duration = Number(seconds);
  const offered = model?.capabilities.durations;
  if (!Number.isInteger(duration) || duration < 1)
    throw new ApiError('validation_error', `Invalid body: seconds: a whole number of seconds, not ${seconds}.`);
  if (model && offered && !offered.includes(duration)) throw refused('seconds', seconds, model, offered.map(String));
  return { duration };
}
