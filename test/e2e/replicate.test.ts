// Replicate models through the real stack against a stand-in that speaks Replicate's HTTP API, including its
// failure modes: a model error, rejected input, rate limiting, an empty output, and a model that never finishes.
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { cancelWhileUpstreamRuns, generateAndWait, useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { type ReplicateStandIn, startReplicateStandIn } from '../stand-ins/replicate.ts';

let upstream: ReplicateStandIn;
const gateway = useGateway(async () => {
  const output = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#00aa66' } }).png().toBuffer();
  upstream = await startReplicateStandIn({ token: 'r8_test_token', output });
  return { REPLICATE_API_TOKEN: 'r8_test_token', REPLICATE_BASE_URL: upstream.baseUrl, PROVIDER_POLL_INTERVAL_MS: 50 };
});
afterAll(() => upstream?.close());

const developer = useFundedDeveloper(gateway);

const balance = () => developer.balance();
const upscale = (image: string, extra: object = {}) => ({ type: 'upscale', model: 'replicate/real-esrgan', image_url: `https://images.example/${image}`, resolution: '4x', ...extra });

describe('Replicate', () => {
  it('runs a prediction with the model\'s input names, copies the output into our storage and charges the quote', async () => {
    const before = await balance();
    const task = await generateAndWait(gateway, developer.key, upscale('cat.png'));
    expect(task).toMatchObject({ status: 'completed', cost: 0.004, output: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/files\/gen_\w+\/output-0\.png$/) });
    expect(upstream.created.at(-1)).toEqual({ model: 'nightmareai/real-esrgan', input: { image: 'https://images.example/cat.png', scale: 4 } });
    const image = await sharp(Buffer.from(await (await fetch(task.output)).arrayBuffer())).metadata();
    expect([image.width, image.height]).toEqual([40, 30]);
    expect(before - (await balance())).toBe(4_000n);
  });

  it('retries after 429 with Retry-After, then completes', async () => {
    const created = upstream.created.length;
    expect(await generateAndWait(gateway, developer.key, upscale('busy-[[429]].png'))).toMatchObject({ status: 'completed' });
    expect(upstream.created.length).toBe(created + 1);
  });

  it.each([
    ['a failed prediction', 'bad-[[failed]].png', /^The model failed: NSFW content detected/],
    ['input the provider rejects', 'bad-[[422]].png', /^The provider rejected the request \(HTTP 422\)\.$/],
    ['a prediction without output', 'none-[[empty]].png', /^The model returned no output\.$/],
  ])('%s fails the task with a clear error and a full refund', async (_name, image, error) => {
    const before = await balance();
    expect(await generateAndWait(gateway, developer.key, upscale(image))).toMatchObject({ status: 'failed', error: expect.stringMatching(error), cost: 0 });
    expect(await balance()).toBe(before);
  });

  it('a cancelled task cancels its prediction upstream and is refunded', async () => {
    const before = await balance();
    await cancelWhileUpstreamRuns(gateway, developer.key, upscale('wait-[[slow]].png'), () => upstream.created.some((prediction) => JSON.stringify(prediction.input).includes('[[slow]]')));
    expect(await balance()).toBe(before);
    await expect.poll(() => upstream.cancelled.length, { timeout: 15_000 }).toBeGreaterThan(0);
  });
});
