// fal models through the real stack against a stand-in that speaks fal's queue API, including a job that
// reports COMPLETED and fails when its result is fetched, and fal's ED25519-signed completion callbacks.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import {
  type InputServer,
  mp4Of,
  type OutputMedia,
  outputKind,
  outputMedia,
  startInputServer,
  wavTone,
} from '../helpers/media.ts';
import { itRunsOneModelOfEachType } from '../helpers/sample-requests.ts';
import { cancelTask, cancelWhileUpstreamRuns, useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { call, generateAndWait, postGeneration, startGeneration, waitForEnd } from '../helpers/http.ts';
import { callbackSignals, postCallback, useUpstreamCallbacks } from '../helpers/upstream-callbacks.ts';
import { type FalStandIn, falStandInUserId, startFalStandIn } from '../stand-ins/fal-queue.ts';

let upstream: FalStandIn;
let media: OutputMedia;
const catalog = loadCatalog();
const gateway = useGateway(async () => {
  media = await outputMedia();
  const kindOf = (endpoint: string) =>
    outputKind(
      catalog.models.find((model) => model.upstream.model === endpoint)?.capabilities.output_modalities ?? ['image'],
    );
  upstream = await startFalStandIn({ key: 'fal-test-key', media, kindOf });
  return {
    providers: {
      fal: {
        key: 'fal-test-key',
        queueUrl: upstream.queueUrl,
        jwksUrl: upstream.jwksUrl,
        userId: falStandInUserId,
        timeoutSeconds: 1,
      },
      pollIntervalMs: 50,
    },
  };
});
afterAll(() => upstream?.close());

const developer = useFundedDeveloper(gateway);

const balance = () => developer.balance();
/** A generation by the funded developer, polled until it ends. */
const generate = (body: object) => generateAndWait(gateway, { key: developer.key, body });
const image = (prompt: string, extra: object = {}) => ({
  type: 'text-to-image',
  model: 'fal/flux-dev',
  prompt,
  ...extra,
});

describe('fal', () => {
  itRunsOneModelOfEachType(
    { gateway, developer, media: () => media, lastUpstreamModel: () => upstream.submitted.at(-1)?.endpoint },
    'fal',
  );

  it("submits with the model's input names, polls to COMPLETED, copies the images out and charges the quote", async () => {
    const before = await balance();
    const task = await generate(image('a lighthouse at dusk', { num_outputs: 2, aspect_ratio: '16:9', seed: 7 }));
    expect(task).toMatchObject({
      status: 'completed',
      cost: 0.05,
      outputs: [expect.stringMatching(/output-0\.png$/), expect.stringMatching(/output-1\.png$/)],
    });
    expect(upstream.submitted.at(-1)).toMatchObject({
      endpoint: 'fal-ai/flux/dev',
      input: { prompt: 'a lighthouse at dusk', num_images: 2, image_size: 'landscape_16_9', seed: 7 },
      webhook: null,
    });
    const stored = await sharp(Buffer.from(await (await fetch(task.output)).arrayBuffer())).metadata();
    expect([stored.width, stored.height]).toEqual([24, 16]);
    expect(before - (await balance())).toBe(50_000n);
  });

  it('face-swap sends the picture as base_image_url and the face as swap_image_url, one URL each', async () => {
    const picture = 'https://inputs.example/group.png';
    const face = 'https://inputs.example/face.png';
    const task = await generate({ type: 'face-swap', model: 'fal/face-swap', image_url: picture, images: [face] });
    expect(task).toMatchObject({ status: 'completed', cost: 0.01 });
    expect(upstream.submitted.at(-1)).toMatchObject({
      endpoint: 'fal-ai/face-swap',
      input: { base_image_url: picture, swap_image_url: face },
    });
  });

  it('charges only the outputs delivered when the upstream returns fewer than asked for', async () => {
    const before = await balance();
    const task = await generate(image('three of them [[fewer]]', { num_outputs: 3 }));
    expect(task).toMatchObject({ status: 'completed', cost: 0.025 });
    expect(task.outputs).toHaveLength(1);
    expect(before - (await balance())).toBe(25_000n);
  });

  it('a throttled submission (429 with Retry-After) is retried, then completes, submitted once', async () => {
    const submissions = upstream.submitted.length;
    expect(await generate(image('busy [[429]]'))).toMatchObject({
      status: 'completed',
    });
    expect(upstream.submitted.length).toBe(submissions + 1);
  });

  it('keeps polling the same job through a failed status call', async () => {
    const submissions = upstream.submitted.length;
    expect(await generate(image('flaky [[500]]'))).toMatchObject({
      status: 'completed',
    });
    expect(upstream.submitted.length).toBe(submissions + 1); // the job is checked again, not submitted again
  });

  it('a status call that answers past FAL_TIMEOUT_SECONDS is abandoned and asked again', async () => {
    const submissions = upstream.submitted.length;
    expect(await generate(image('slow answer [[slow-status]]'))).toMatchObject({
      status: 'completed',
    });
    expect(upstream.submitted.length).toBe(submissions + 1);
    expect(upstream.statusCalls.get(upstream.submitted.at(-1)!.requestId)).toBeGreaterThanOrEqual(2);
  });

  it.each([
    [
      'a job that completes and then fails on its result',
      'x [[result-error]]',
      /^The provider rejected the request \(HTTP 422\): Image contains NSFW content/,
    ],
    ['a submission the provider rejects', 'x [[422]]', /^The provider rejected the request \(HTTP 422\)/],
    ['a result without any file', 'x [[malformed]]', /^The model returned no output\.$/],
  ])('%s fails the task with a clear error and a full refund', async (_name, prompt, error) => {
    const before = await balance();
    expect(await generate(image(prompt))).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(error),
      cost: 0,
    });
    expect(await balance()).toBe(before);
  });

  it('a cancelled task cancels its job upstream and is refunded', async () => {
    const before = await balance();
    await cancelWhileUpstreamRuns(gateway, {
      key: developer.key,
      body: image('wait [[slow]]'),
      submitted: () => upstream.submitted.some((job) => JSON.stringify(job.input).includes('[[slow]]')),
    });
    expect(await balance()).toBe(before);
    await expect.poll(() => upstream.cancelled.length, { timeout: 15_000 }).toBeGreaterThan(0);
  });
});

describe("a fal model priced on its inputs' length (issue 16)", () => {
  let inputs: InputServer;
  beforeAll(async () => {
    inputs = await startInputServer({
      '/12s.mp4': { body: mp4Of(12), contentType: 'video/mp4' },
      '/12s.wav': { body: wavTone(12), contentType: 'audio/wav' },
    });
  });
  afterAll(() => inputs?.close());

  it('lip-sync of a 12 s clip declared as 5 s reserves and is charged the 30 s its output will last', async () => {
    const before = await balance();
    const task = await generate({
      type: 'lip-sync',
      model: 'fal/sync-lipsync-2',
      video_url: `${inputs.url}/12s.mp4`,
      audio_url: `${inputs.url}/12s.wav`,
      duration: 5,
    });
    expect(task).toMatchObject({ status: 'completed', cost: 1.5 });
    expect(before - (await balance())).toBe(1_500_000n);
  });
});

describe('priced options (sound, generate_type) reach the generation as quoted', () => {
  const payer = useFundedDeveloper(gateway);
  const quoteOf = async (body: Record<string, unknown>) => {
    const { type, model, sound, generate_type } = body;
    const quoted = await call(gateway, 'POST', '/agents/quote', {
      key: payer.key,
      body: { type, model, sound, generate_type },
    });
    expect(quoted.status).toBe(200);
    return quoted.body.cost_usd as string;
  };

  it.each<[string, Record<string, unknown>, Record<string, unknown>, string]>([
    [
      'a video with sound',
      { type: 'text-to-video', model: 'fal/veo-3-fast', prompt: 'waves on rocks', sound: true },
      { generate_audio: true },
      '1.20',
    ],
    [
      'a silent video from a model that defaults to sound upstream',
      { type: 'text-to-video', model: 'fal/veo-3-fast', prompt: 'waves on rocks' },
      { generate_audio: false },
      '0.80',
    ],
    [
      'a LowPoly mesh',
      { type: 'text-to-3d', model: 'fal/tripo-3d-v2.5', prompt: 'a teapot', generate_type: 'LowPoly' },
      { generate_type: 'LowPoly' },
      '0.30',
    ],
  ])('%s: reserved and charged the quote, and fal is asked for it', async (_name, body, upstreamFields, price) => {
    expect(await quoteOf(body)).toBe(price);
    const before = await payer.balance();
    const created = await postGeneration(gateway, { key: payer.key, body });
    expect(created.status).toBe(202);
    expect(created.body.cost_formatted).toBe(`$${price}`);
    const task = await waitForEnd(gateway, { key: payer.key, pollUrl: created.body.poll_url });
    expect(task).toMatchObject({ status: 'completed', cost: Number(price) });
    expect(upstream.submitted.at(-1)!.input).toMatchObject(upstreamFields);
    expect(before - (await payer.balance())).toBe(BigInt(Math.round(Number(price) * 1e6)));
  });

  it('sound on a silent model is 400 naming `sound`, and nothing is reserved', async () => {
    const before = await payer.balance();
    const submissions = upstream.submitted.length;
    const { status, body } = await postGeneration(gateway, {
      key: payer.key,
      body: { model: 'fal/hailuo-02', input: { prompt: 'waves on rocks', sound: true } },
    });
    expect(status).toBe(400);
    expect(body).toEqual({
      error: 'validation_error',
      message: expect.stringMatching(/sound: this model does not generate sound \(model hailuo-02\)/),
    });
    expect(await payer.balance()).toBe(before);
    expect(upstream.submitted.length).toBe(submissions);
  });
});

describe('fal callbacks', () => {
  useUpstreamCallbacks(gateway);

  it('a signed callback finishes the task without waiting for a poll', async () => {
    const task = await generateAndWait(gateway, {
      key: developer.key,
      body: image('announced by callback'),
      timeoutMs: 20_000,
    });
    expect(task).toMatchObject({ status: 'completed', outputs: [expect.stringMatching(/output-0\.png$/)] });
    const job = upstream.submitted.at(-1)!;
    expect(job.webhook).toBe(`${gateway.app.url}/callbacks/fal/${task.id}`);
    expect(upstream.callbacks).toContainEqual({ url: job.webhook, status: 200 });
    // The callback woke the workflow, which asked fal once: its payload is never taken as the result.
    expect(upstream.statusCalls.get(job.requestId)).toBe(1);
    expect(await callbackSignals(gateway, task.id)).toBe(1);
  });

  it("forged, tampered, stale and other accounts' callbacks are refused (401); a genuine one wakes the task once, a replay of it nothing", async () => {
    const before = await developer.balance();
    const taskId = await startGeneration(gateway, { key: developer.key, body: image('never ends [[slow]]') });
    await expect.poll(() => upstream.submitted.some((job) => job.webhook?.endsWith(taskId))).toBe(true);
    const { requestId } = upstream.submitted.find((job) => job.webhook?.endsWith(taskId))!;
    const body = JSON.stringify({ request_id: requestId, gateway_request_id: requestId, status: 'OK', payload: {} });
    const refused = [
      await postCallback(gateway, {
        provider: 'fal',
        taskId: taskId,
        headers: upstream.signCallback(requestId, body, { foreignKey: true }),
        body: body,
      }),
      await postCallback(gateway, {
        provider: 'fal',
        taskId: taskId,
        headers: upstream.signCallback(requestId, body),
        body: body.replace('"OK"', '"ERROR"'),
      }),
      await postCallback(gateway, {
        provider: 'fal',
        taskId: taskId,
        headers: upstream.signCallback(requestId, body, { timestamp: Math.floor(Date.now() / 1000) - 600 }),
        body: body,
      }),
      // Signed by fal, but for another fal account (fal signs every account's callbacks with the same keys).
      await postCallback(gateway, {
        provider: 'fal',
        taskId: taskId,
        headers: upstream.signCallback(requestId, body, { userId: 'someone-else' }),
        body: body,
      }),
      await postCallback(gateway, { provider: 'fal', taskId: taskId, headers: {}, body: body }),
    ];
    for (const response of refused) {
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ error: 'invalid_signature', message: expect.any(String) });
    }
    expect(await callbackSignals(gateway, taskId)).toBe(0);
    const genuine = upstream.signCallback(requestId, body);
    expect(
      (await postCallback(gateway, { provider: 'fal', taskId: taskId, headers: genuine, body: body })).status,
    ).toBe(200);
    await expect.poll(() => callbackSignals(gateway, taskId)).toBe(1);
    // The same signed callback again (a replay within its five minutes): answered, but it wakes nothing.
    expect(
      (await postCallback(gateway, { provider: 'fal', taskId: taskId, headers: genuine, body: body })).status,
    ).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await callbackSignals(gateway, taskId)).toBe(1);
    // fal still says IN_PROGRESS, so the task waits on: cancelling it refunds it and cancels the job upstream.
    await cancelTask(gateway, taskId);
    expect(await developer.balance()).toBe(before);
    expect(upstream.cancelled).toContain(requestId);
  });

  it('a callback for a provider that is not configured, or a malformed task id, is 404', async () => {
    for (const path of ['/callbacks/replicate/gen_abc', '/callbacks/fal/not-a-task']) {
      const response = await fetch(`${gateway.app.url}${path}`, { method: 'POST', body: '{}' });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: 'not_found' });
    }
  });
});
