// A request's options as the upstream spells them (catalog `upstream.values`, `upstream.sizes`): fal FLUX's
// image_size names, fal Seedream's pixel sizes, and a value fal takes for every model that sends image_size.
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import { loadConfig } from '../../src/config/config.ts';
import { upstreamInput } from '../../src/providers/upstream-input.ts';
import { admissibleRequest } from '../../src/use-cases/generations/admissible.ts';
import { sampleRequest } from '../helpers/sample-requests.ts';

const catalog = loadCatalog();
const config = loadConfig({ NODE_ENV: 'test', FAL_KEY: 'fal-test-key' }, []);
/** The upstream input of a text-to-image request to `model` with these options, admitted as POST /generations is. */
const sent = (model: string, options: object) => {
  const admitted = admissibleRequest({ config, catalog }, {
    type: 'text-to-image',
    model,
    prompt: 'a lighthouse at dusk',
    ...options,
  } as never);
  return upstreamInput(admitted.request, admitted.model);
};

// fal's image_size names (fal-ai/flux/schnell, fal-ai/flux/dev: ImageSize | Enum).
const falImageSizeNames = ['square_hd', 'square', 'portrait_4_3', 'portrait_16_9', 'landscape_4_3', 'landscape_16_9'];

describe('fal FLUX: aspect_ratio is sent as the image_size of that shape', () => {
  const named: Record<string, string> = {
    '1:1': 'square_hd',
    '16:9': 'landscape_16_9',
    '9:16': 'portrait_16_9',
    '4:3': 'landscape_4_3',
    '3:4': 'portrait_4_3',
  };
  const rows = ['fal/flux-schnell', 'fal/flux-dev'].flatMap((id) =>
    catalog.get(id)!.capabilities.aspect_ratios!.map((ratio) => [id, ratio, named[ratio]] as const),
  );

  it('covers every aspect ratio of both models', () => {
    expect(rows).toHaveLength(10);
  });

  it.each(rows)('%s: aspect_ratio %s → image_size %s', (model, ratio, name) => {
    expect(sent(model, { aspect_ratio: ratio })).toEqual({ prompt: 'a lighthouse at dusk', image_size: name });
  });

  it('without an aspect ratio, no image_size (fal picks its default)', () => {
    expect(sent('fal/flux-dev', {})).toEqual({ prompt: 'a lighthouse at dusk' });
  });
});

describe('fal Seedream 4.0: resolution × aspect_ratio is sent as one image_size { width, height }', () => {
  const model = catalog.get('fal/seedream-4')!;
  const pixels = ({ width, height }: { width: number; height: number }) => width * height;
  const rows = model.capabilities.resolutions!.flatMap((resolution) =>
    model.capabilities.aspect_ratios!.map((ratio) => [resolution, ratio] as const),
  );

  it.each(rows)('%s %s: the shape asked for, within fal’s 960×960 to 4096×4096 pixels', (resolution, ratio) => {
    const input = sent(model.id, { resolution, aspect_ratio: ratio });
    expect(Object.keys(input).sort()).toEqual(['image_size', 'prompt']);
    const size = input.image_size as { width: number; height: number };
    const [across, down] = ratio.split(':').map(Number) as [number, number];
    expect(size.width / size.height).toBeCloseTo(across / down, 2);
    expect(pixels(size)).toBeGreaterThanOrEqual(960 * 960);
    expect(pixels(size)).toBeLessThanOrEqual(4096 * 4096);
    expect(Math.max(size.width, size.height)).toBeLessThanOrEqual(4096);
  });

  it('each resolution has more pixels than the one below, shape for shape', () => {
    for (const ratio of model.capabilities.aspect_ratios!) {
      const [small, medium, large] = ['1K', '2K', '4K'].map((resolution) =>
        pixels(sent(model.id, { resolution, aspect_ratio: ratio }).image_size as never),
      ) as [number, number, number];
      expect(small).toBeLessThan(medium);
      expect(medium).toBeLessThan(large);
    }
  });

  it.each<[string, object, object]>([
    ['neither: fal’s own default', {}, { width: 2048, height: 2048 }],
    ['an aspect ratio alone: at 2K', { aspect_ratio: '16:9' }, { width: 2560, height: 1440 }],
    ['a resolution alone: square', { resolution: '4K' }, { width: 4096, height: 4096 }],
  ])('%s', (_name, options, size) => {
    expect(sent(model.id, options)).toEqual({ prompt: 'a lighthouse at dusk', image_size: size });
  });
});

describe('every fal model that sends image_size sends a value fal takes', () => {
  const rows = catalog.models
    .filter((model) => model.provider === 'fal')
    .flatMap((model) =>
      [undefined, ...(model.capabilities.resolutions ?? [])].flatMap((resolution) =>
        [undefined, ...(model.capabilities.aspect_ratios ?? [])].map(
          (ratio) =>
            [model.id, `${resolution ?? '-'} ${ratio ?? '-'}`, model, { resolution, aspect_ratio: ratio }] as const,
        ),
      ),
    );
  it.each(rows)('%s %s', (_id, _options, model, options) => {
    const admitted = admissibleRequest({ config, catalog }, { ...sampleRequest(model), ...options } as never);
    const size = upstreamInput(admitted.request, admitted.model).image_size;
    if (size === undefined || typeof size === 'string') expect([undefined, ...falImageSizeNames]).toContain(size);
    else expect(size).toEqual({ width: expect.any(Number), height: expect.any(Number) });
  });
});
