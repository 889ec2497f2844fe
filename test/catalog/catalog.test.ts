import { describe, expect, it } from 'vitest';
import { generationTypes } from '../../src/domain/values.ts';
import type { CatalogEntry } from '../../src/catalog/catalog.schema.ts';
import { CatalogError, loadCatalog, modelOnRoute } from '../../src/catalog/catalog.ts';
import { catalogEntries } from '../../src/catalog/models.catalog.ts';
import { type PricingInput, priceRequest } from '../../src/catalog/pricing.ts';

const catalog = loadCatalog();

/** Every request the model accepts that can matter to its price, enumerated here independently of cost-band.ts. */
function everyPricedRequest(model: CatalogEntry): PricingInput[] {
  const caps = model.capabilities;
  const variants: PricingInput[] = [{}];
  const expand = <K extends keyof PricingInput>(key: K, values: PricingInput[K][]) => {
    const next = variants.flatMap((variant) => values.map((value) => ({ ...variant, [key]: value })));
    variants.splice(0, variants.length, ...next);
  };
  if (caps.resolutions) expand('resolution', caps.resolutions);
  if (caps.durations && model.pricing.kind !== 'per_minute_of_input') expand('duration', caps.durations);
  expand(
    'num_outputs',
    Array.from({ length: caps.max_outputs ?? 1 }, (_, i) => i + 1),
  );
  if (caps.supports_sound) expand('sound', [false, true]);
  if (caps.generate_types) expand('generate_type', caps.generate_types);
  const rule = model.pricing;
  if (rule.kind === 'per_1k_characters')
    expand(
      'prompt',
      [1, 999, 1000, 1001, rule.max_characters].map((n) => 'x'.repeat(n)),
    );
  if (rule.kind === 'per_minute_of_input') expand('duration', [1, 59, 60, 61, rule.max_minutes * 60]);
  if (rule.kind === 'per_token') {
    const maxOut = caps.max_output_tokens!;
    const maxIn = caps.context_window_tokens! - maxOut;
    expand('usage', [
      { input_tokens: 0, output_tokens: 1 },
      { input_tokens: 100, output_tokens: 100 },
      { input_tokens: maxIn, output_tokens: maxOut },
    ]);
  }
  return variants;
}

describe('the catalog', () => {
  it('loads: every entry is valid', () => {
    expect(catalog.models.length).toBe(catalogEntries.length);
  });

  it('covers all 17 generation types', () => {
    expect(new Set(catalog.models.map((model) => model.type))).toEqual(new Set(generationTypes));
  });

  it('has unique ids of the form provider/slug', () => {
    const ids = catalog.models.map((model) => model.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const model of catalog.models) expect(model.id).toBe(`${model.provider}/${model.slug}`);
  });

  it.each(catalog.models.map((model) => [model.id, model] as const))(
    '%s: its cost band is the min and max of its prices',
    (_id, model) => {
      const prices = everyPricedRequest(model).map((input) => priceRequest(model, input).micros);
      const min = prices.reduce((a, b) => (b < a ? b : a));
      const max = prices.reduce((a, b) => (b > a ? b : a));
      expect(model.band).toEqual({ min, max });
      expect(min).toBeGreaterThan(0n);
    },
  );

  it('describes local engines as such', () => {
    for (const model of catalog.models.filter((entry) => entry.provider === 'local')) {
      expect(model.description).toMatch(/^Runs offline on this server/);
    }
  });
});

describe('a bad catalog stops the start naming the model and the field', () => {
  const good = catalogEntries.find((entry) => entry.slug === 'hailuo-02')!;
  it.each<[string, unknown, RegExp]>([
    ['a missing field', { ...good, description: undefined }, /Catalog entry "hailuo-02": description: /],
    ['an unknown type', { ...good, type: 'text-to-smell' }, /Catalog entry "hailuo-02": type: Invalid option/],
    [
      'a bad price',
      { ...good, pricing: { kind: 'per_second', usd: '1,5' } },
      /"hailuo-02": pricing.usd: expected a USD amount/,
    ],
    ['an unknown field', { ...good, colour: 'red' }, /"hailuo-02": \(entry\): Unrecognized key: "colour"/],
    [
      'a capability only the gateway could offer',
      { ...good, capabilities: { ...good.capabilities, supports_streaming: true } },
      /"hailuo-02": capabilities: Unrecognized key: "supports_streaming"/,
    ],
    [
      'a required input that is not a request input',
      { ...good, inputs: { required: ['colour'] } },
      /"hailuo-02": inputs.required.0: Invalid option/,
    ],
    [
      'tiers that do not match the resolutions',
      { ...good, capabilities: { ...good.capabilities, resolutions: ['768p', '1080p'] } },
      /tiers \[512p, 768p\] must match capabilities.resolutions \[1080p, 768p\]/,
    ],
    [
      'a sound surcharge without sound',
      { ...good, surcharges: { sound_usd_per_second: '0.01' } },
      /surcharges.sound_usd_per_second: must be set exactly when/,
    ],
    [
      'a per-minute price without the input it is measured on',
      { ...catalogEntries.find((entry) => entry.slug === 'whisper-1')!, measured_inputs: undefined },
      /"whisper-1": measured_inputs: required by a per-minute-of-input price/,
    ],
    [
      'a measured input on a price that does not depend on it',
      { ...good, pricing: { kind: 'flat', usd: '0.10' }, measured_inputs: ['video_url'] },
      /"hailuo-02": measured_inputs: a flat price does not depend on an input's length/,
    ],
    ['an entry without a slug', { name: 'x' }, /Catalog entry #1: slug: /],
  ])('%s', (_name, entry, message) => {
    expect(() => loadCatalog([entry])).toThrow(CatalogError);
    expect(() => loadCatalog([entry])).toThrow(message);
  });

  const flux = catalogEntries.find((entry) => entry.slug === 'flux-schnell')!;
  const seedream = catalogEntries.find((entry) => entry.slug === 'seedream-4')!;
  const fluxSizes = flux.upstream.values!.aspect_ratio!;
  const seedreamSizes = seedream.upstream.sizes!;
  const withFluxSizes = (sizes: Record<string, string>) => ({
    ...flux,
    upstream: { ...flux.upstream, values: { aspect_ratio: sizes } },
  });
  const withSeedreamSizes = (sizes: object) => ({ ...seedream, upstream: { ...seedream.upstream, sizes } });
  const without = <T extends object>(table: T, key: string) =>
    Object.fromEntries(Object.entries(table).filter(([name]) => name !== key));
  it.each<[string, unknown, RegExp]>([
    [
      'an offered aspect ratio without its upstream value',
      withFluxSizes(without(fluxSizes, '3:4')),
      /"flux-schnell": upstream.values.aspect_ratio: no upstream value for 3:4/,
    ],
    [
      'an upstream value for an aspect ratio the model does not offer',
      withFluxSizes({ ...fluxSizes, '21:9': 'landscape_21_9' }),
      /"flux-schnell": upstream.values.aspect_ratio: 21:9 not in capabilities.aspect_ratios/,
    ],
    [
      'upstream values for a field the model offers no values of',
      { ...flux, upstream: { ...flux.upstream, values: { resolution: { '2K': 'auto_2K' } } } },
      /"flux-schnell": upstream.values.resolution: capabilities.resolutions is not set/,
    ],
    [
      'an offered resolution and aspect ratio without a size',
      withSeedreamSizes({
        ...seedreamSizes,
        by_resolution: {
          ...seedreamSizes.by_resolution,
          '4K': without(seedreamSizes.by_resolution['4K']!, '9:16'),
        },
      }),
      /"seedream-4": upstream.sizes.by_resolution.4K: no upstream value for 9:16/,
    ],
    [
      'a size that is not WIDTHxHEIGHT',
      withSeedreamSizes({
        ...seedreamSizes,
        by_resolution: { ...seedreamSizes.by_resolution, '1K': { ...seedreamSizes.by_resolution['1K'], '1:1': '1K' } },
      }),
      /"seedream-4": upstream.sizes.by_resolution.1K.1:1: expected WIDTHxHEIGHT/,
    ],
    [
      'a default size that is not in the table',
      withSeedreamSizes({ ...seedreamSizes, default: { resolution: '8K', aspect_ratio: '1:1' } }),
      /"seedream-4": upstream.sizes.default: not a resolution and aspect ratio/,
    ],
  ])('%s', (_name, entry, message) => {
    expect(() => loadCatalog([entry])).toThrow(message);
  });

  it('a duplicate id', () => {
    expect(() => loadCatalog([good, good])).toThrow(/id fal\/hailuo-02 is listed twice/);
  });
});

describe('fallback routes', () => {
  const schnell = catalogEntries.find((entry) => entry.slug === 'flux-schnell')!;
  const withRoutes = (fallbacks: unknown) => ({ ...schnell, fallbacks });
  const replicateRoute = { provider: 'replicate', upstream: { model: 'black-forest-labs/flux-schnell' } };

  it('FLUX schnell runs on fal, then on Replicate under its own names, at the same id and price', () => {
    const model = catalog.get('fal/flux-schnell')!;
    expect(modelOnRoute(model, 0)).toBe(model);
    expect(modelOnRoute(model, 1)).toMatchObject({
      id: 'fal/flux-schnell',
      provider: 'replicate',
      pricing: { kind: 'per_output', usd: '0.003' },
      upstream: { model: 'black-forest-labs/flux-schnell', parameters: {}, values: {} },
    });
    expect(modelOnRoute(model, 2)).toBeUndefined();
  });

  it.each([
    [
      'a provider that does not exist',
      [{ ...replicateRoute, provider: 'nowhere' }],
      /"flux-schnell": fallbacks\.0\.provider: /,
    ],
    [
      "the model's own provider again",
      [{ ...replicateRoute, provider: 'fal' }],
      /fallbacks\.0\.provider: fal is already a route of this model/,
    ],
    [
      'the same provider twice',
      [replicateRoute, replicateRoute],
      /fallbacks\.1\.provider: replicate is already a route/,
    ],
    [
      'a local engine',
      [{ provider: 'local', upstream: { model: 'lanczos' } }],
      /fallbacks\.0\.provider: a local engine is not a fallback route/,
    ],
    [
      'a route whose values miss an offered aspect ratio',
      [{ ...replicateRoute, upstream: { ...replicateRoute.upstream, values: { aspect_ratio: { '1:1': 'square' } } } }],
      /fallbacks\.0\.upstream\.values\.aspect_ratio: no upstream value for 16:9, 9:16, 4:3, 3:4/,
    ],
    ['an empty list', [], /"flux-schnell": fallbacks: /],
  ])('refuses %s', (_name, fallbacks, message) => {
    expect(() => loadCatalog([withRoutes(fallbacks)])).toThrow(message);
  });

  it('refuses a route whose provider cannot run the type (text-to-video on the OpenAI adapter runs; 3D does not)', () => {
    const mesh = catalogEntries.find((entry) => entry.type === 'text-to-3d')!;
    expect(() => loadCatalog([{ ...mesh, fallbacks: [{ provider: 'openai', upstream: { model: 'm' } }] }])).toThrow(
      /fallbacks\.0\.provider: the openai adapter does not run text-to-3d/,
    );
  });
});
