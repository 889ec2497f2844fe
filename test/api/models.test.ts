// GET /models and POST /agents/quote over real HTTP and PostgreSQL.
import { beforeAll, describe, expect, it } from 'vitest';
import { generationTypes } from '../../src/domain/values.ts';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import { priceRequest } from '../../src/catalog/pricing.ts';
import { credit, reserve } from '../../src/ledger/ledger.ts';
import { createAgentWithKey, createDeveloperWithKey } from '../helpers/accounts.ts';
import { unreadChains, useAppWithDatabase } from '../helpers/app.ts';
import { call } from '../helpers/http.ts';

const catalog = loadCatalog();
// An OpenAI-compatible server configured, fal and Replicate not: availability follows configuration and runners.
const stack = useAppWithDatabase({
  config: { providers: { openai: { baseUrl: 'http://127.0.0.1:9/v1' } }, x402: { enabled: true }, ...unreadChains },
});

describe('GET /models', () => {
  it('lists the whole catalog in its stable order with total', async () => {
    const first = await call(stack, 'GET', '/models');
    const second = await call(stack, 'GET', '/models');
    expect(first.status).toBe(200);
    expect(first.body.total).toBe(catalog.models.length);
    expect(first.body.models.map((model: any) => model.id)).toEqual(catalog.models.map((model) => model.id));
    expect(second.body).toEqual(first.body);
  });

  it('shows each model with its cost band in USD and whether it can run here', async () => {
    const { body } = await call(stack, 'GET', '/models?type=text-to-video');
    const veo = body.models.find((model: any) => model.id === 'fal/veo-3-fast');
    expect(veo).toMatchObject({
      name: 'Veo 3 Fast',
      provider: 'fal',
      provider_slug: 'fal',
      slug: 'veo-3-fast',
      type: 'text-to-video',
      cost: { min: 0.8, max: 1.2 },
      dollar_cost: { min: 0.8, max: 1.2 },
      supports_x402: true,
      supports_webhook: true,
      available: false,
      capabilities: { durations: [8], resolutions: ['720p', '1080p'], supports_sound: true },
    });
    expect(body.models.find((model: any) => model.id === 'replicate/wan-2.2').available).toBe(false);
  });

  it('claims for text models nothing the gateway does not pass through: no vision, tools, stream or JSON mode', async () => {
    const { body } = await call(stack, 'GET', '/models');
    const gatewayFeatures = [
      'supports_vision',
      'supports_function_calling',
      'supports_streaming',
      'supports_json_mode',
    ];
    for (const model of body.models) {
      const claimed = gatewayFeatures.filter((feature) => feature in model.capabilities);
      if (model.type !== 'text-to-text') expect(claimed, model.id).toEqual([]);
      else for (const feature of gatewayFeatures) expect(model.capabilities[feature], model.id).toBe(false);
    }
    expect(body.models.filter((model: any) => model.type === 'text-to-text')).toHaveLength(3);
  });

  it('marks as available exactly the models this server can run now', async () => {
    const { body } = await call(stack, 'GET', '/models');
    const available = body.models.filter((model: any) => model.available).map((model: any) => model.id);
    // The configured OpenAI-compatible server runs what its adapter covers; local engines run; nothing of fal
    // or Replicate, which are not configured.
    expect(available).toEqual([
      'openai/gpt-image-1',
      'openai/sora-2',
      'local/ken-burns',
      'local/transcode',
      'local/lanczos',
      'openai/tts-1',
      'local/espeak',
      'local/audio-clean',
      'openai/whisper-1',
      'openai/kimi-k2',
      'openai/llama-3.3-70b',
      'openai/qwen3-235b',
    ]);
  });

  it.each(generationTypes)('filters by type=%s', async (type) => {
    const { status, body } = await call(stack, 'GET', `/models?type=${type}`);
    expect(status).toBe(200);
    expect(body.total).toBeGreaterThan(0);
    expect(body.total).toBe(body.models.length);
    expect(body.models.every((model: any) => model.type === type)).toBe(true);
  });

  it.each([
    ['fal', 'fal'],
    ['FAL', 'fal'],
    ['Replicate', 'replicate'],
    ['openai', 'openai'],
    ['OpenAI-compatible', 'openai'],
    ['local', 'local'],
  ])('filters by provider=%s, name or slug, any case', async (provider, slug) => {
    const { body } = await call(stack, 'GET', `/models?provider=${encodeURIComponent(provider)}`);
    expect(body.total).toBe(catalog.models.filter((model) => model.provider === slug).length);
    expect(body.models.every((model: any) => model.provider_slug === slug)).toBe(true);
  });

  it('combines filters, and an empty result is still 200', async () => {
    expect((await call(stack, 'GET', '/models?type=text-to-text&provider=openai')).body.total).toBe(3);
    expect(await call(stack, 'GET', '/models?type=text-to-text&provider=local')).toEqual({
      status: 200,
      headers: expect.anything(),
      body: { models: [], total: 0 },
    });
    expect((await call(stack, 'GET', '/models?provider=nobody')).body).toEqual({ models: [], total: 0 });
  });

  it('answers an unknown type with 400 listing the valid ones', async () => {
    const { status, body } = await call(stack, 'GET', '/models?type=text-to-smell');
    expect(status).toBe(400);
    expect(body.error).toBe('validation_error');
    expect(body.message).toMatch(/^Invalid query: type: Invalid option: expected one of /);
    for (const type of generationTypes) expect(body.message).toContain(`"${type}"`);
  });
});

describe('POST /agents/quote', () => {
  let agent: Awaited<ReturnType<typeof createAgentWithKey>>;
  let developer: Awaited<ReturnType<typeof createDeveloperWithKey>>;
  beforeAll(async () => {
    agent = await createAgentWithKey(stack.database.prisma); // starts with the 1.00 trial credit
    developer = await createDeveloperWithKey(stack.database.prisma);
    await credit(stack.database.prisma, {
      accountId: developer.developerId,
      amount: 5_000_000n,
      kind: 'adjustment',
      idempotencyKey: `topup:${developer.developerId}`,
    });
    await reserve(stack.database.prisma, {
      accountId: developer.developerId,
      amount: 1_500_000n,
      taskId: 'gen_held',
      idempotencyKey: 'gen_held:reserve',
    });
  });

  it('quotes an affordable request with the price admission will charge', async () => {
    const request = { type: 'text-to-image', model: 'fal/flux-dev', num_outputs: 2 };
    const { status, body } = await call(stack, 'POST', '/agents/quote', { key: agent.apiKey.key, body: request });
    expect(status).toBe(200);
    const expected = priceRequest(catalog.get('fal/flux-dev')!, request);
    expect(body).toEqual({
      cost_usd: '0.05',
      your_balance: '1.00',
      can_afford: true,
      shortfall: null,
      key_allows: true,
      key_refusal: null,
      breakdown: expected.breakdown,
      deposit_addresses: expect.objectContaining({ base: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/) }),
      asset: 'USDC',
    });
    expect(expected.micros).toBe(50_000n);
  });

  it('says what is missing when the balance does not cover it', async () => {
    const { body } = await call(stack, 'POST', '/agents/quote', {
      key: agent.apiKey.key,
      body: { type: 'text-to-video', model: 'fal/veo-3-fast', sound: true },
    });
    expect(body).toMatchObject({ cost_usd: '1.20', your_balance: '1.00', can_afford: false, shortfall: '0.20' });
  });

  it('says which token counts a text-to-text quote assumed (it carries no prompt)', async () => {
    const { status, body } = await call(stack, 'POST', '/agents/quote', {
      key: agent.apiKey.key,
      body: { type: 'text-to-text', model: 'openai/kimi-k2' },
    });
    expect(status).toBe(200);
    // An empty prompt's chat framing (128 per request, 8 for its one message), and the default max_tokens.
    expect(body).toMatchObject({ assumed_input_tokens: 136, assumed_output_tokens: 4096, cost_usd: '0.010322' });
    expect(body.breakdown).toMatchObject({ input_tokens: 136, output_tokens: 4096, tokens_measured: false });
    const image = await call(stack, 'POST', '/agents/quote', {
      key: agent.apiKey.key,
      body: { type: 'text-to-image', model: 'fal/flux-dev' },
    });
    expect(image.body).not.toHaveProperty('assumed_input_tokens');
  });

  it('quotes sound on a model whose video always has sound, at no extra cost', async () => {
    const quote = (sound?: boolean) =>
      call(stack, 'POST', '/agents/quote', {
        key: agent.apiKey.key,
        body: { type: 'text-to-video', model: 'openai/sora-2', duration: 4, sound },
      });
    expect((await quote(true)).body).toMatchObject({ cost_usd: '0.40' });
    expect((await quote()).body).toMatchObject({ cost_usd: '0.40' });
  });

  it('gives a developer its own available balance, no deposit addresses and USD', async () => {
    const { status, body } = await call(stack, 'POST', '/agents/quote', {
      key: developer.apiKey.key,
      body: { type: 'text-to-video', model: 'fal/hailuo-02', resolution: '768p', duration: 10 },
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      cost_usd: '0.45',
      your_balance: '3.50',
      can_afford: true,
      shortfall: null,
      deposit_addresses: {},
      asset: 'USD',
    });
  });

  it.each<[string, object, RegExp]>([
    ['unknown model', { type: 'text-to-image', model: 'fal/nope' }, /^Invalid body: model: unknown model "fal\/nope"/],
    [
      'model of another type',
      { type: 'text-to-video', model: 'fal/flux-dev' },
      /model: fal\/flux-dev serves text-to-image, not text-to-video/,
    ],
    [
      'resolution not offered',
      { type: 'text-to-video', model: 'fal/hailuo-02', resolution: '4k' },
      /resolution: must be one of 768p, 512p \(model hailuo-02\)/,
    ],
    [
      'resolution on a model without any',
      { type: 'text-to-image', model: 'fal/flux-dev', resolution: '2K' },
      /resolution: this model takes no resolution/,
    ],
    [
      'duration not offered',
      { type: 'text-to-video', model: 'fal/hailuo-02', duration: 7 },
      /duration: must be one of 6, 10 seconds/,
    ],
    [
      'too many outputs',
      { type: 'text-to-image', model: 'fal/flux-dev', num_outputs: 5 },
      /num_outputs: must be at most 4/,
    ],
    ['num_outputs below 1', { type: 'text-to-image', model: 'fal/flux-dev', num_outputs: 0 }, /num_outputs: Too small/],
    [
      'sound on a silent model',
      { type: 'text-to-video', model: 'fal/hailuo-02', sound: true },
      /sound: this model does not generate sound/,
    ],
    [
      'silence on a model whose video always has sound',
      { type: 'text-to-video', model: 'openai/sora-2', sound: false },
      /sound: this model always generates sound \(model sora-2\)/,
    ],
    [
      'generate_type not offered',
      { type: 'image-to-3d', model: 'fal/trellis', generate_type: 'LowPoly' },
      /generate_type: this model takes no generate_type/,
    ],
    [
      'generate_type outside the enum',
      { type: 'image-to-3d', model: 'fal/hunyuan3d-2.1', generate_type: 'HighPoly' },
      /generate_type: Invalid option/,
    ],
    ['unknown type', { type: 'text-to-smell', model: 'fal/flux-dev' }, /type: Invalid option/],
    ['missing model', { type: 'text-to-image' }, /model: Invalid input/],
  ])('400 for %s', async (_name, request, message) => {
    const { status, body } = await call(stack, 'POST', '/agents/quote', { key: agent.apiKey.key, body: request });
    expect(status).toBe(400);
    expect(body).toEqual({ error: 'validation_error', message: expect.stringMatching(message) });
  });

  it('401 without a key', async () => {
    const { status, body } = await call(stack, 'POST', '/agents/quote', {
      body: { type: 'text-to-image', model: 'fal/flux-dev' },
    });
    expect(status).toBe(401);
    expect(body).toEqual({
      error: 'unauthorized',
      message: 'Missing API key: send it as `Authorization: Bearer <API key>`.',
    });
  });
});
