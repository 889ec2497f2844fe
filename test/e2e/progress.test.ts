// What GET /generations/{id} tells of a running task (issue 18.3), through the real stack: `started_at` once it
// left the queue, and `progress` as its provider reports it — a local engine rendering a multi-second clip (stage,
// then a percent that moves), and a fal job (stand-in) that waits in the upstream queue at falling positions.
import { afterAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { call, startGeneration } from '../helpers/http.ts';
import { usePngInputServer } from '../helpers/png-input-server.ts';
import { outputKind, outputMedia } from '../helpers/media.ts';
import { type FalStandIn, falStandInUserId, startFalStandIn } from '../stand-ins/fal-queue.ts';

let fal: FalStandIn;
const catalog = loadCatalog();
const kindOf = (reference: string) =>
  outputKind(
    catalog.models.find((model) => model.upstream.model === reference)?.capabilities.output_modalities ?? ['image'],
  );

const gateway = useGateway(async () => {
  fal = await startFalStandIn({ key: 'fal-test-key', media: await outputMedia(), kindOf });
  return {
    providers: {
      fal: { key: 'fal-test-key', queueUrl: fal.queueUrl, jwksUrl: fal.jwksUrl, userId: falStandInUserId },
      // One status poll a second, so each upstream state is seen by a reader polling faster than that.
      pollIntervalMs: 1_000,
      pollMaxIntervalMs: 1_000,
    },
  };
});
const developer = useFundedDeveloper(gateway);

// The input answers after 1.5 s, so the download is a stage a reader sees.
const inputs = usePngInputServer({
  width: 640,
  height: 360,
  respond: (_req, _res, sendPng) => void setTimeout(sendPng, 1_500),
});
afterAll(async () => {
  await fal?.close();
});

/** Reads the task every 150 ms until it ends; returns every answer read, the last one ended. */
async function readUntilEnded(taskId: string, timeoutMs = 60_000): Promise<any[]> {
  const reads: any[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { status, body } = await call(gateway, 'GET', `/generations/${taskId}`, { key: developer.key });
    expect(status).toBe(200);
    reads.push(body);
    if (body.status === 'completed' || body.status === 'failed') return reads;
    if (Date.now() > deadline) throw new Error(`still ${body.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

/** Each distinct progress seen while processing, in order (repeats of the same one dropped). */
const progressSeen = (reads: any[]) =>
  reads
    .filter((task) => task.status === 'processing' && task.progress)
    .map((task) => task.progress)
    .filter((progress, index, all) => index === 0 || JSON.stringify(progress) !== JSON.stringify(all[index - 1]));

describe('progress of a running task', () => {
  it('a local engine: started_at, the download, then its rendering percent; none once completed', async () => {
    const taskId = await startGeneration(gateway, {
      key: developer.key,
      body: { type: 'image-to-video', model: 'local/ken-burns', image_url: `${inputs.url()}/photo.png`, duration: 10 },
    });
    const reads = await readUntilEnded(taskId);
    const ended = reads.at(-1);
    expect(ended.status).toBe('completed');
    expect(ended.progress).toBeUndefined();
    // started_at: set once processing, kept after, between creation and completion.
    const processing = reads.filter((task) => task.status === 'processing');
    expect(processing.length).toBeGreaterThan(0);
    for (const task of processing) expect(task.started_at).toBe(ended.started_at);
    expect(Date.parse(ended.started_at)).toBeGreaterThanOrEqual(Date.parse(ended.created_at));
    expect(Date.parse(ended.started_at)).toBeLessThanOrEqual(Date.parse(ended.completed_at));
    for (const task of reads.filter((read) => read.status === 'queued')) expect(task.started_at).toBeUndefined();

    const seen = progressSeen(reads);
    expect(seen[0]).toEqual({ stage: 'downloading input' });
    const percents = seen.filter((progress) => progress.stage === 'rendering').map((progress) => progress.percent);
    console.log(`ken-burns progress seen: ${JSON.stringify(seen)}`);
    // Seen while rendering, rising, within 0..99 (100 is the completed task itself). How many readings a poller sees
    // depends on how long the render takes against the 1 s write throttle; that the percent moves is
    // test/providers/local-engines.test.ts's.
    expect(percents.length).toBeGreaterThanOrEqual(1);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    for (const percent of percents) expect(percent).toBeGreaterThanOrEqual(0);
    for (const percent of percents) expect(percent).toBeLessThanOrEqual(99);
  });

  it('an upstream job: its position in the fal queue as it falls, then running', async () => {
    const taskId = await startGeneration(gateway, {
      key: developer.key,
      body: { type: 'text-to-image', model: 'fal/flux-dev', prompt: 'a lighthouse [[queued]]' },
    });
    const reads = await readUntilEnded(taskId);
    expect(reads.at(-1)).toMatchObject({ status: 'completed' });
    expect(reads.at(-1).progress).toBeUndefined();
    expect(progressSeen(reads)).toEqual([
      { stage: 'in upstream queue', queue_position: 2 },
      { stage: 'in upstream queue', queue_position: 1 },
      { stage: 'in upstream queue', queue_position: 0 },
      { stage: 'running upstream' },
    ]);
  });
});
