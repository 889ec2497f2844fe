// fal models through the real stack against a stand-in that speaks fal's queue API, including a job that
// reports COMPLETED and fails when its result is fetched.
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { cancelWhileUpstreamRuns, generateAndWait, useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { type FalStandIn, startFalStandIn } from '../stand-ins/fal-queue.ts';

let upstream: FalStandIn;
const gateway = useGateway(async () => {
  const output = await sharp({ create: { width: 24, height: 16, channels: 3, background: '#663399' } }).png().toBuffer();
  upstream = await startFalStandIn({ key: 'fal-test-key', output });
  return { FAL_KEY: 'fal-test-key', FAL_QUEUE_URL: upstream.queueUrl, PROVIDER_POLL_INTERVAL_MS: 50 };
});
afterAll(() => upstream?.close());

const developer = useFundedDeveloper(gateway);

const balance = () => developer.balance();
const image = (prompt: string, extra: object = {}) => ({ type: 'text-to-image', model: 'fal/flux-dev', prompt, ...extra });

describe('fal', () => {
  it('submits with the model\'s input names, polls to COMPLETED, copies the images out and charges the quote', async () => {
    const before = await balance();
    const task = await generateAndWait(gateway, developer.key, image('a lighthouse at dusk', { num_outputs: 2, aspect_ratio: '16:9', seed: 7 }));
    expect(task).toMatchObject({ status: 'completed', cost: 0.05, outputs: [expect.stringMatching(/output-0\.png$/)] });
    expect(upstream.submitted.at(-1)).toEqual({ endpoint: 'fal-ai/flux/dev', input: { prompt: 'a lighthouse at dusk', num_images: 2, image_size: '16:9', seed: 7 } });
    const stored = await sharp(Buffer.from(await (await fetch(task.output)).arrayBuffer())).metadata();
    expect([stored.width, stored.height]).toEqual([24, 16]);
    expect(before - (await balance())).toBe(50_000n);
  });

  it('keeps polling the same job through a failed status call', async () => {
    const submissions = upstream.submitted.length;
    expect(await generateAndWait(gateway, developer.key, image('flaky [[500]]'))).toMatchObject({ status: 'completed' });
    expect(upstream.submitted.length).toBe(submissions + 1); // resumed from the heartbeat, not submitted again
  });

  it.each([
    ['a job that completes and then fails on its result', 'x [[result-error]]', /^The provider rejected the request \(HTTP 422\): Image contains NSFW content/],
    ['a submission the provider rejects', 'x [[422]]', /^The provider rejected the request \(HTTP 422\)/],
  ])('%s fails the task with a clear error and a full refund', async (_name, prompt, error) => {
    const before = await balance();
    expect(await generateAndWait(gateway, developer.key, image(prompt))).toMatchObject({ status: 'failed', error: expect.stringMatching(error), cost: 0 });
    expect(await balance()).toBe(before);
  });

  it('a cancelled task cancels its job upstream and is refunded', async () => {
    const before = await balance();
    await cancelWhileUpstreamRuns(gateway, developer.key, image('wait [[slow]]'), () => upstream.submitted.some((job) => JSON.stringify(job.input).includes('[[slow]]')));
    expect(await balance()).toBe(before);
    await expect.poll(() => upstream.cancelled.length, { timeout: 15_000 }).toBeGreaterThan(0);
  });
});
