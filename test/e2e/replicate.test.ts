// Replicate models through the real stack against a stand-in that speaks Replicate's HTTP API, including its
// failure modes (a model error, rejected input, rate limiting, an empty or malformed output, a slow answer, a
// model that never finishes) and its signed webhooks.
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import { type OutputMedia, outputKind, outputMedia, pngImage } from '../helpers/media.ts';
import { itRunsOneModelOfEachType } from '../helpers/sample-requests.ts';
import { cancelTask, cancelWhileUpstreamRuns, useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { generateAndWait, startGeneration } from '../helpers/http.ts';
import { callbackSignals, postCallback, useUpstreamCallbacks } from '../helpers/upstream-callbacks.ts';
import { type ReplicateStandIn, startReplicateStandIn } from '../stand-ins/replicate.ts';

let upstream: ReplicateStandIn;
let media: OutputMedia;
const catalog = loadCatalog();
const gateway = useGateway(async () => {
  media = await outputMedia(await pngImage(40, 30, '#00aa66'));
  const kindOf = (reference: string) =>
    outputKind(
      catalog.models.find((model) => model.upstream.model === reference)?.capabilities.output_modalities ?? ['image'],
    );
  upstream = await startReplicateStandIn({ token: 'r8_test_token', media, kindOf });
  return {
    providers: {
      replicate: { apiToken: 'r8_test_token', baseUrl: upstream.baseUrl, timeoutSeconds: 1 },
      pollIntervalMs: 50,
    },
  };
});
afterAll(() => upstream?.close());

const developer = useFundedDeveloper(gateway);

const balance = () => developer.balance();
/** A generation by the funded developer, polled until it ends. */
const generate = (body: object) => generateAndWait(gateway, { key: developer.key, body });
const upscale = (image: string, extra: object = {}) => ({
  type: 'upscale',
  model: 'replicate/real-esrgan',
  image_url: `https://images.example/${image}`,
  resolution: '4x',
  ...extra,
});

describe('Replicate', () => {
  itRunsOneModelOfEachType(
    { gateway, developer, media: () => media, lastUpstreamModel: () => upstream.created.at(-1)?.model },
    'replicate',
  );

  it("runs a prediction with the model's input names, copies the output into our storage and charges the quote", async () => {
    const before = await balance();
    const task = await generate(upscale('cat.png'));
    expect(task).toMatchObject({
      status: 'completed',
      cost: 0.004,
      output: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/files\/gen_\w+\/output-0\.png$/),
    });
    expect(upstream.created.at(-1)).toMatchObject({
      model: 'nightmareai/real-esrgan',
      input: { image: 'https://images.example/cat.png', scale: 4 },
      webhook: null,
    });
    const image = await sharp(Buffer.from(await (await fetch(task.output)).arrayBuffer())).metadata();
    expect([image.width, image.height]).toEqual([40, 30]);
    expect(before - (await balance())).toBe(4_000n);
  });

  it('retries after 429 with Retry-After, then completes', async () => {
    const created = upstream.created.length;
    expect(await generate(upscale('busy-[[429]].png'))).toMatchObject({
      status: 'completed',
    });
    expect(upstream.created.length).toBe(created + 1);
  });

  it('a GET that answers past REPLICATE_TIMEOUT_SECONDS is abandoned and asked again', async () => {
    expect(await generate(upscale('slow-[[slow-get]].png'))).toMatchObject({
      status: 'completed',
    });
    expect(upstream.gets.get(upstream.created.at(-1)!.id)).toBeGreaterThanOrEqual(2);
  });

  it.each([
    ['a failed prediction', 'bad-[[failed]].png', /^The model failed: NSFW content detected/],
    ['input the provider rejects', 'bad-[[422]].png', /^The provider rejected the request \(HTTP 422\)\.$/],
    ['a prediction without output', 'none-[[empty]].png', /^The model returned no output\.$/],
    ['an output that holds no URL', 'odd-[[malformed]].png', /^The model returned no output\.$/],
  ])('%s fails the task with a clear error and a full refund', async (_name, image, error) => {
    const before = await balance();
    expect(await generate(upscale(image))).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(error),
      cost: 0,
    });
    expect(await balance()).toBe(before);
  });

  it('a cancelled task cancels its prediction upstream and is refunded', async () => {
    const before = await balance();
    await cancelWhileUpstreamRuns(gateway, {
      key: developer.key,
      body: upscale('wait-[[slow]].png'),
      submitted: () => upstream.created.some((prediction) => JSON.stringify(prediction.input).includes('[[slow]]')),
    });
    expect(await balance()).toBe(before);
    await expect.poll(() => upstream.cancelled.length, { timeout: 15_000 }).toBeGreaterThan(0);
  });
});

describe('Replicate webhooks', () => {
  useUpstreamCallbacks(gateway);

  it("a signed webhook (secret asked of Replicate's API) finishes the task without waiting for a poll", async () => {
    const task = await generateAndWait(gateway, { key: developer.key, body: upscale('hooked.png'), timeoutMs: 20_000 });
    expect(task).toMatchObject({ status: 'completed', output: expect.stringMatching(/output-0\.png$/) });
    const prediction = upstream.created.at(-1)!;
    expect(prediction.webhook).toBe(`${gateway.app.url}/callbacks/replicate/${task.id}`);
    expect(upstream.callbacks).toContainEqual({ url: prediction.webhook, status: 200 });
    // One GET to check the state and one to collect the output: the webhook's body is never taken as the result.
    expect(upstream.gets.get(prediction.id)).toBe(2);
    expect(await callbackSignals(gateway, task.id)).toBe(1);
  });

  it('forged, tampered and stale webhooks are refused (401) and wake nothing; a genuine one wakes the task', async () => {
    const before = await developer.balance();
    const taskId = await startGeneration(gateway, { key: developer.key, body: upscale('wait-[[slow]].png') });
    await expect.poll(() => upstream.created.some((prediction) => prediction.webhook?.endsWith(taskId))).toBe(true);
    const { id } = upstream.created.find((prediction) => prediction.webhook?.endsWith(taskId))!;
    const body = JSON.stringify({ id, status: 'succeeded', output: ['https://evil.example/x.png'] });
    const refused = [
      await postCallback(gateway, {
        provider: 'replicate',
        taskId: taskId,
        headers: upstream.signCallback(body, { secret: 'whsec_Zm9yZ2VkIHNlY3JldCBmb3IgdGhlIHRlc3Q=' }),
        body: body,
      }),
      await postCallback(gateway, {
        provider: 'replicate',
        taskId: taskId,
        headers: upstream.signCallback(body),
        body: body.replace('succeeded', 'failed'),
      }),
      await postCallback(gateway, {
        provider: 'replicate',
        taskId: taskId,
        headers: upstream.signCallback(body, { timestamp: Math.floor(Date.now() / 1000) - 600 }),
        body: body,
      }),
      await postCallback(gateway, { provider: 'replicate', taskId: taskId, headers: {}, body: body }),
    ];
    for (const response of refused) {
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ error: 'invalid_signature', message: expect.any(String) });
    }
    expect(await callbackSignals(gateway, taskId)).toBe(0);
    expect(
      (
        await postCallback(gateway, {
          provider: 'replicate',
          taskId: taskId,
          headers: upstream.signCallback(body),
          body: body,
        })
      ).status,
    ).toBe(200);
    await expect.poll(() => callbackSignals(gateway, taskId)).toBe(1);
    // Replicate still says processing, so the task waits on (the forged output is never fetched): cancel it.
    await cancelTask(gateway, taskId);
    expect(await developer.balance()).toBe(before);
    expect(upstream.cancelled).toContain(id);
  });
});
