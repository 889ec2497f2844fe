// Generations through the real stack: HTTP → Temporal dev server (update-with-start) → worker → PostgreSQL →
// a local engine (sharp) → local storage served by the API.
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ffmpegPath } from '../../src/providers/local/ffmpeg.ts';
import { balanceTaskId } from '../../src/payments/methods/balance/balance-method.ts';
import { credit, ledgerTotals } from '../../src/ledger/ledger.ts';
import { useGateway } from '../helpers/gateway.ts';
import { call, registerAgent, waitForEnd } from '../helpers/http.ts';
import { listenLocally } from '../../harness/local-server.ts';

const stack = useGateway(() => ({ server: { trustProxy: 'loopback' } }));
let inputs: Server;
let inputsUrl: string;

beforeAll(async () => {
  // The callers' inputs: a 16×10 PNG, a 1 s tone and a 1 s clip made here, and a URL that is not there.
  const png = await sharp({ create: { width: 16, height: 10, channels: 3, background: '#3366cc' } })
    .png()
    .toBuffer();
  const tone = execFileSync(ffmpegPath, [
    '-hide_banner',
    '-loglevel',
    'error',
    '-f',
    'lavfi',
    '-i',
    'sine=duration=1',
    '-f',
    'wav',
    'pipe:1',
  ]);
  const clip = execFileSync(ffmpegPath, [
    '-hide_banner',
    '-loglevel',
    'error',
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=160x120:rate=25',
    '-t',
    '1',
    '-c:v',
    'libx264',
    '-pix_fmt',
    'yuv420p',
    '-f',
    'matroska',
    'pipe:1',
  ]);
  inputs = createServer((req, res) => {
    if (req.url === '/input.png') res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    else if (req.url === '/tone.wav') res.writeHead(200, { 'content-type': 'audio/wav' }).end(tone);
    else if (req.url === '/clip.mkv') res.writeHead(200, { 'content-type': 'video/x-matroska' }).end(clip);
    else res.writeHead(404).end();
  });
  inputsUrl = (await listenLocally(inputs)).url;
});

afterAll(() => {
  inputs?.close();
});

describe('a generation from registration to download', () => {
  it('register → quote → generate → poll → completed; the output downloads; the balance fell by the quote', async () => {
    const agent = await registerAgent(stack);
    const request = { type: 'upscale', model: 'local/lanczos', image_url: `${inputsUrl}/input.png`, resolution: '4x' };
    const quote = await call(stack, 'POST', '/agents/quote', {
      key: agent.api_key,
      body: { type: request.type, model: request.model, resolution: '4x' },
    });
    expect(quote.body).toMatchObject({ cost_usd: '0.0005', your_balance: '1.00', can_afford: true });

    const created = await call(stack, 'POST', '/generations', { key: agent.api_key, body: request });
    expect(created.status).toBe(202);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^gen_[0-9A-Za-z]{22}$/),
      type: 'upscale',
      model: 'local/lanczos',
      status: 'queued',
      cost: 0.0005,
      cost_formatted: '$0.0005',
      created_at: expect.any(String),
      poll_url: `/api/v1/generations/${created.body.id}`,
    });

    const done = await waitForEnd(stack, { key: agent.api_key, pollUrl: created.body.poll_url });
    expect(done).toMatchObject({
      id: created.body.id,
      status: 'completed',
      type: 'upscale',
      model: 'local/lanczos',
      resolution: '4x',
      cost: 0.0005,
    });
    expect(done.outputs).toEqual([done.output]);
    expect(done.completed_at).toEqual(expect.any(String));

    const download = await fetch(done.output);
    expect(download.status).toBe(200);
    const image = await sharp(Buffer.from(await download.arrayBuffer())).metadata();
    expect({ width: image.width, height: image.height, format: image.format }).toEqual({
      width: 64,
      height: 40,
      format: 'png',
    });

    const balance = await call(stack, 'GET', '/agents/balance', { key: agent.api_key });
    expect(balance.body).toMatchObject({ balance: '0.9995', usage: { total_requests: 1, total_usd_spent: '0.0005' } });
    const row = await stack.database.prisma.balance.findUniqueOrThrow({ where: { accountId: agent.agent_id } });
    const totals = await ledgerTotals(stack.database.prisma, agent.agent_id);
    expect({ balance: totals.balance, reserved: totals.reserved }).toEqual({
      balance: row.balance,
      reserved: row.reserved,
    });
  });

  it('accepts the `input` layout, with the type taken from the model', async () => {
    const agent = await registerAgent(stack);
    const created = await call(stack, 'POST', '/generations', {
      key: agent.api_key,
      body: { model: 'local/lanczos', input: { image_url: `${inputsUrl}/input.png`, resolution: '2x' } },
    });
    expect(created.status).toBe(202);
    expect(created.body.type).toBe('upscale');
    const done = await waitForEnd(stack, { key: agent.api_key, pollUrl: created.body.poll_url });
    expect(done).toMatchObject({ status: 'completed', resolution: '2x' });
  });

  it('fails a task whose input cannot be fetched, with a clear error, and refunds it', async () => {
    const agent = await registerAgent(stack);
    const created = await call(stack, 'POST', '/generations', {
      key: agent.api_key,
      body: { type: 'upscale', model: 'local/lanczos', image_url: `${inputsUrl}/missing.png` },
    });
    const done = await waitForEnd(stack, { key: agent.api_key, pollUrl: created.body.poll_url });
    expect(done).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/could not download .*missing\.png: HTTP 404/),
      cost: 0,
    });
    expect((await call(stack, 'GET', '/agents/balance', { key: agent.api_key })).body).toMatchObject({
      balance: '1.00',
      usage: { total_requests: 0 },
    });
  });
});

describe('every local model through the API', () => {
  it.each<[string, () => object, string]>([
    ['local/lanczos', () => ({ type: 'upscale', image_url: `${inputsUrl}/input.png` }), 'image/png'],
    [
      'local/ken-burns',
      () => ({ type: 'image-to-video', image_url: `${inputsUrl}/input.png`, duration: 3, aspect_ratio: '1:1' }),
      'video/mp4',
    ],
    ['local/espeak', () => ({ type: 'text-to-audio', prompt: 'The gateway speaks.' }), 'audio/wav'],
    ['local/audio-clean', () => ({ type: 'audio-to-audio', audio_url: `${inputsUrl}/tone.wav` }), 'audio/mpeg'],
    [
      'local/transcode',
      () => ({ type: 'video-to-video', video_url: `${inputsUrl}/clip.mkv`, resolution: '480p' }),
      'video/mp4',
    ],
  ])('%s completes and its output downloads', async (model, body, contentType) => {
    const agent = await registerAgent(stack);
    const created = await call(stack, 'POST', '/generations', { key: agent.api_key, body: { model, ...body() } });
    expect(created.status).toBe(202);
    const done = await waitForEnd(stack, { key: agent.api_key, pollUrl: created.body.poll_url });
    expect(done).toMatchObject({ status: 'completed', model });
    const download = await fetch(done.output);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toContain(contentType);
    expect((await download.arrayBuffer()).byteLength).toBeGreaterThan(50);
  });
});

describe('POST /generations refusals', () => {
  it('402 when the balance does not cover the cost: no task, nothing reserved', async () => {
    const from = '198.19.0.1';
    await registerAgent(stack, { from });
    const broke = await registerAgent(stack, { from }); // the address's trial went to the first agent
    const { status, body } = await call(stack, 'POST', '/generations', {
      key: broke.api_key,
      body: { type: 'upscale', model: 'local/lanczos', image_url: `${inputsUrl}/input.png` },
    });
    expect(status).toBe(402);
    expect(body).toEqual({
      error: 'insufficient_balance',
      message: 'This generation costs $0.0005; the available balance is $0.00.',
      cost: 0.0005,
      balance_available: 0,
    });
    expect(await stack.database.prisma.task.count({ where: { accountId: broke.agent_id } })).toBe(0);
    expect(await stack.database.prisma.ledgerEntry.count({ where: { accountId: broke.agent_id } })).toBe(0);
  });

  it.each<[string, object, RegExp]>([
    [
      'an unknown model',
      { type: 'upscale', model: 'local/nope', image_url: 'https://x.example/a.png' },
      /model: unknown model "local\/nope"/,
    ],
    [
      'a model of another type',
      { type: 'text-to-image', model: 'local/lanczos', prompt: 'a cat' },
      /model: local\/lanczos serves upscale, not text-to-image/,
    ],
    [
      'a missing input image',
      { type: 'upscale', model: 'local/lanczos' },
      /image_url: upscale needs image_url or images/,
    ],
    ['a missing prompt', { type: 'text-to-image', model: 'fal/flux-dev' }, /prompt: text-to-image needs a prompt/],
    [
      'a face-swap without the face to put in',
      { type: 'face-swap', model: 'fal/face-swap', image_url: 'https://x.example/a.png' },
      /images: face-swap needs images: the face to put into image_url/,
    ],
    [
      'an image edit without its instruction',
      { type: 'image-to-image', model: 'fal/flux-kontext-pro', image_url: 'https://x.example/a.png' },
      /prompt: fal\/flux-kontext-pro needs prompt/,
    ],
    [
      'an image in images for a model whose upstream reads image_url alone',
      { type: 'image-to-3d', model: 'fal/trellis', images: ['https://x.example/a.png'] },
      /image_url: fal\/trellis needs image_url/,
    ],
    [
      'a model whose provider is not configured',
      { type: 'text-to-image', model: 'fal/flux-dev', prompt: 'a cat' },
      /model: fal\/flux-dev is not available on this server/,
    ],
    [
      'an option the model lacks',
      { type: 'upscale', model: 'local/lanczos', image_url: 'https://x.example/a.png', resolution: '8x' },
      /resolution: must be one of 2x, 4x/,
    ],
    [
      'sound on a silent model',
      { type: 'image-to-video', model: 'local/ken-burns', image_url: 'https://x.example/a.png', sound: true },
      /^Invalid body: sound: this model does not generate sound \(model ken-burns\)$/,
    ],
    [
      'silence from a model whose output is sound',
      { model: 'local/espeak', input: { prompt: 'hello', sound: false } },
      /^Invalid body: sound: this model always generates sound \(model espeak\)$/,
    ],
    [
      'a generate_type on a model without one',
      { type: 'upscale', model: 'local/lanczos', image_url: 'https://x.example/a.png', generate_type: 'LowPoly' },
      /^Invalid body: generate_type: this model takes no generate_type \(model lanczos\)$/,
    ],
    [
      'a URI that is not http(s)',
      { type: 'upscale', model: 'local/lanczos', image_url: 'file:///etc/passwd' },
      /image_url: must be an http\(s\) URI/,
    ],
    [
      'num_outputs below 1',
      { type: 'upscale', model: 'local/lanczos', image_url: 'https://x.example/a.png', num_outputs: 0 },
      /num_outputs: Too small/,
    ],
  ])('400 for %s', async (_name, requestBody, message) => {
    const agent = await registerAgent(stack);
    const { status, body } = await call(stack, 'POST', '/generations', { key: agent.api_key, body: requestBody });
    expect(status).toBe(400);
    expect(body).toEqual({ error: 'validation_error', message: expect.stringMatching(message) });
  });

  it('401 without a key', async () => {
    const { status, body } = await call(stack, 'POST', '/generations', {
      body: { type: 'upscale', model: 'local/lanczos' },
    });
    expect(status).toBe(401);
    expect(body).toEqual({
      error: 'unauthorized',
      message: 'Missing API key: send it as `Authorization: Bearer <API key>`.',
    });
  });
});

describe('Idempotency-Key', () => {
  it('the same key twice gives one task and one reservation; another body with it is 409', async () => {
    const agent = await registerAgent(stack);
    const body = { type: 'upscale', model: 'local/lanczos', image_url: `${inputsUrl}/input.png` };
    const headers = { 'idempotency-key': 'order-42' };
    const [first, second] = await Promise.all([
      call(stack, 'POST', '/generations', { key: agent.api_key, body, headers }),
      call(stack, 'POST', '/generations', { key: agent.api_key, body, headers }),
    ]);
    expect([first.status, second.status]).toEqual([202, 202]);
    expect(second.body.id).toBe(first.body.id);
    await waitForEnd(stack, { key: agent.api_key, pollUrl: first.body.poll_url });
    const third = await call(stack, 'POST', '/generations', { key: agent.api_key, body, headers });
    expect(third).toMatchObject({ status: 202, body: { id: first.body.id, status: 'queued', cost: first.body.cost } });
    expect(await stack.database.prisma.task.count({ where: { accountId: agent.agent_id } })).toBe(1);
    expect(
      await stack.database.prisma.ledgerEntry.count({ where: { accountId: agent.agent_id, kind: 'reserve' } }),
    ).toBe(1);

    const changed = await call(stack, 'POST', '/generations', {
      key: agent.api_key,
      body: { ...body, resolution: '4x' },
      headers,
    });
    expect(changed).toMatchObject({ status: 409, body: { error: 'idempotency_key_reused' } });
  });
});

describe('Idempotency-Key after a refusal', () => {
  it('a request refused for its balance can be retried with the same key once the balance covers it', async () => {
    const from = '198.19.0.2';
    await registerAgent(stack, { from });
    const broke = await registerAgent(stack, { from });
    const body = { type: 'upscale', model: 'local/lanczos', image_url: `${inputsUrl}/input.png` };
    const headers = { 'idempotency-key': 'after-top-up' };
    expect((await call(stack, 'POST', '/generations', { key: broke.api_key, body, headers })).status).toBe(402);
    // The refusal is an outcome, not a failure: its workflow completed, so operators filtering on Failed miss it.
    const refusedRun = stack.env.client.workflow.getHandle(
      balanceTaskId(stack.config.outputs.taskIdSecret, broke.agent_id, 'after-top-up'),
    );
    expect(await refusedRun.result()).toBeNull();
    expect((await refusedRun.describe()).status.name).toBe('COMPLETED');
    await credit(stack.database.prisma, {
      accountId: broke.agent_id,
      amount: 1_000_000n,
      kind: 'deposit',
      idempotencyKey: `deposit:${broke.agent_id}`,
    });
    const retried = await call(stack, 'POST', '/generations', { key: broke.api_key, body, headers });
    expect(retried.status).toBe(202);
    expect((await waitForEnd(stack, { key: broke.api_key, pollUrl: retried.body.poll_url })).status).toBe('completed');
  });
});

describe('GET /generations/{id} and its deprecated alias', () => {
  it('answers the owner, 404 for anyone else and for unknown ids, 400 for a malformed id', async () => {
    const owner = await registerAgent(stack);
    const stranger = await registerAgent(stack);
    const created = await call(stack, 'POST', '/generations', {
      key: owner.api_key,
      body: { type: 'upscale', model: 'local/lanczos', image_url: `${inputsUrl}/input.png` },
    });
    const done = await waitForEnd(stack, { key: owner.api_key, pollUrl: created.body.poll_url });

    const strangers = await call(stack, 'GET', created.body.poll_url, { key: stranger.api_key });
    const unknown = await call(stack, 'GET', '/generations/gen_0000000000000000000000', { key: owner.api_key });
    expect(strangers).toMatchObject({ status: 404, body: { error: 'not_found' } });
    expect(unknown.status).toBe(404);
    expect(strangers.body.message.replace(created.body.id, 'X')).toBe(
      unknown.body.message.replace('gen_0000000000000000000000', 'X'),
    );
    expect(await call(stack, 'GET', '/generations/not-a-task', { key: owner.api_key })).toMatchObject({
      status: 400,
      body: { error: 'validation_error', message: expect.stringMatching(/^Invalid path: id: must be a task id/) },
    });

    const alias = await call(stack, 'GET', `/predictions/${created.body.id}/result`, { key: owner.api_key });
    expect(alias.status).toBe(200);
    expect(alias.body).toEqual(done);
    expect(alias.headers.get('deprecation')).toBe('true');
    expect(alias.headers.get('sunset')).toBe('Wed, 29 Jul 2026 10:24:55 GMT');
    expect(alias.headers.get('link')).toBe(`</api/v1/generations/${created.body.id}>; rel="successor-version"`);
    expect((await call(stack, 'GET', `/predictions/${created.body.id}/result`, { key: stranger.api_key })).status).toBe(
      404,
    );
  });
});
