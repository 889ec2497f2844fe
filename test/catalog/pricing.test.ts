// Every pricing rule kind with exact micro-USD results.
import { describe, expect, it } from 'vitest';
import type { CatalogEntry } from '../../src/catalog/catalog.schema.ts';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import { type PricingInput, priceRequest } from '../../src/catalog/pricing.ts';

const catalog = loadCatalog();
const model = (id: string): CatalogEntry => catalog.get(id)!;

describe('priceRequest', () => {
  it.each<[string, string, PricingInput, bigint]>([
    ['flat', 'fal/minimax-music-1.5', {}, 35_000n],
    ['per output, default one', 'fal/flux-dev', {}, 25_000n],
    ['per output × num_outputs', 'fal/flux-dev', { num_outputs: 3 }, 75_000n],
    ['per output × resolution tier, default tier', 'openai/gpt-image-1', {}, 42_000n],
    [
      'per output × resolution tier × outputs',
      'openai/gpt-image-1',
      { resolution: '1536x1024', num_outputs: 2 },
      126_000n,
    ],
    ['per second, default duration', 'fal/kling-2.1-standard', {}, 250_000n],
    ['per second × duration', 'fal/kling-2.1-standard', { duration: 10 }, 500_000n],
    ['per second × resolution, default tier and duration', 'fal/hailuo-02', {}, 270_000n],
    ['per second × resolution × duration', 'fal/hailuo-02', { resolution: '512p', duration: 10 }, 170_000n],
    ['per second without sound', 'fal/veo-3-fast', { sound: false }, 800_000n],
    ['per second with the sound surcharge', 'fal/veo-3-fast', { sound: true }, 1_200_000n],
    ['per 1,000 characters, assumed length without text', 'fal/elevenlabs-multilingual-v2', {}, 100_000n],
    ['per 1,000 characters of the prompt', 'fal/elevenlabs-multilingual-v2', { prompt: 'x'.repeat(2500) }, 250_000n],
    ['per 1,000 characters rounds up to the micro-USD', 'openai/tts-1', { prompt: 'Hello, world!' }, 195n],
    ['per minute, reserved minutes without a length', 'openai/whisper-1', {}, 60_000n],
    ['per minute, partial minutes round up', 'openai/whisper-1', { duration: 61 }, 12_000n],
    ['flat + generate_type Normal (no surcharge)', 'fal/tripo-3d-v2.5', { generate_type: 'Normal' }, 200_000n],
    ['flat + generate_type LowPoly surcharge', 'fal/tripo-3d-v2.5', { generate_type: 'LowPoly' }, 300_000n],
    ['flat + generate_type Geometry surcharge', 'fal/hunyuan3d-2.1', { generate_type: 'Geometry' }, 180_000n],
    // Input: one token per UTF-8 byte, 8 per message and 128 per request of chat framing (an upper bound).
    ['tokens: default max_tokens, no prompt (framing only)', 'openai/kimi-k2', {}, 82n + 10_240n],
    [
      'tokens: prompt bound + max_tokens',
      'openai/kimi-k2',
      { prompt: 'x'.repeat(4000), max_tokens: 1000 },
      2_482n + 2_500n, // 4,136 input tokens at 0.60, 1,000 output at 2.50 per million
    ],
    [
      'tokens: a CJK prompt costs its bytes, not a quarter of its characters',
      'openai/kimi-k2',
      { prompt: '长'.repeat(1000), max_tokens: 1000 },
      1_882n + 2_500n, // 3,000 bytes + 136 framing = 3,136 input tokens
    ],
    [
      'tokens: unfolded messages, each under its role',
      'openai/llama-3.3-70b',
      { messages: [{ role: 'user', content: 'x'.repeat(400) }], max_tokens: 100 },
      71n + 40n, // "user: " + 400 bytes + 136 framing = 542 input tokens at 0.13
    ],
    [
      'tokens: measured usage at settlement',
      'openai/kimi-k2',
      { prompt: 'ignored', usage: { input_tokens: 1_000_000, output_tokens: 2_000_000 } },
      5_600_000n,
    ],
  ])('%s (%s)', (_name, id, input, micros) => {
    expect(priceRequest(model(id), input).micros).toBe(micros);
  });

  it('explains itself in the breakdown', () => {
    expect(priceRequest(model('fal/veo-3-fast'), { sound: true }).breakdown).toEqual({
      rule: 'per_second',
      usd_per_second: '0.10',
      duration_seconds: 8,
      num_outputs: 1,
      base_usd: '0.80',
      sound_usd: '0.40',
      total_usd: '1.20',
    });
    expect(priceRequest(model('fal/elevenlabs-multilingual-v2'), {}).breakdown).toMatchObject({
      characters: 1000,
      characters_assumed: true,
    });
    expect(priceRequest(model('openai/kimi-k2'), { max_tokens: 10 }).breakdown).toMatchObject({
      input_tokens: 136,
      output_tokens: 10,
      tokens_measured: false,
    });
  });
});

describe('models priced on the length of their inputs (issue 16)', () => {
  it('a per-minute model prices the measured input, whatever duration was declared', () => {
    const whisper = model('openai/whisper-1');
    expect(priceRequest(whisper, { duration: 1, input_seconds: 3600 }).micros).toBe(360_000n);
    expect(priceRequest(whisper, { input_seconds: 150 }).breakdown).toMatchObject({
      minutes: 3,
      input_length: 'measured',
      input_seconds: 150,
    });
  });

  it("a provider's report of a shorter input never lowers the price below the measured length; a longer one counts", () => {
    const whisper = model('openai/whisper-1');
    expect(priceRequest(whisper, { input_seconds: 150, usage: { input_seconds: 30 } }).micros).toBe(18_000n);
    expect(priceRequest(whisper, { input_seconds: 150, usage: { input_seconds: 200 } }).micros).toBe(24_000n);
  });

  it('a quote without a file says whether it used the declared duration or assumed one', () => {
    const whisper = model('openai/whisper-1');
    expect(priceRequest(whisper, { duration: 90 }).breakdown).toMatchObject({ minutes: 2, input_length: 'declared' });
    expect(priceRequest(whisper, {}).breakdown).toMatchObject({
      minutes: 10,
      minutes_assumed: true,
      input_length: 'assumed',
    });
    expect(priceRequest(model('fal/sync-lipsync-2'), { duration: 10 }).breakdown).toMatchObject({
      duration_seconds: 10,
      input_length: 'declared',
    });
  });

  it('lip-sync prices the shortest duration that covers its measured inputs, not the declared one', () => {
    const lipSync = model('fal/sync-lipsync-2');
    expect(priceRequest(lipSync, { duration: 5, input_seconds: 12 }).breakdown).toMatchObject({
      duration_seconds: 30,
      input_seconds: 12,
      input_length: 'measured',
      total_usd: '1.50',
    });
    expect(priceRequest(lipSync, { duration: 60, input_seconds: 4 }).micros).toBe(250_000n);
    expect(() => priceRequest(lipSync, { input_seconds: 61 })).toThrow(RangeError);
  });
});
