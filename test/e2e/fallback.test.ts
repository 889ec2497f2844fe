// Provider fallback through the real stack: FLUX schnell runs on fal, and on Replicate when fal fails for a reason
// that is not the caller's (an outage past the retry budget, fal not configured). A request fal refuses as bad input
// is never tried elsewhere. The caller pays the quoted price once, whichever route served.
import { afterAll, describe, expect, it } from 'vitest';
import { metrics } from '../../src/metrics/metrics.ts';
import { genProvider } from '../../workflows/contracts/search-attributes.ts';
import { checkedBalance } from '../helpers/balance.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { type OutputMedia, outputMedia } from '../helpers/media.ts';
import { generateAndWait } from '../helpers/http.ts';
import { type FalStandIn, falStandInUserId, startFalStandIn } from '../stand-ins/fal-queue.ts';
import { type ReplicateStandIn, startReplicateStandIn } from '../stand-ins/replicate.ts';

let fal: FalStandIn;
let replicate: ReplicateStandIn;
let media: OutputMedia;
const gateway = useGateway(async () => {
  media = await outputMedia();
  fal = await startFalStandIn({ key: 'fal-test-key', media });
  replicate = await startReplicateStandIn({ token: 'r8_test_token', media });
  return {
    providers: {
      fal: {
        key: 'fal-test-key',
        queueUrl: fal.queueUrl,
        jwksUrl: fal.jwksUrl,
        userId: falStandInUserId,
        timeoutSeconds: 1,
      },
      replicate: { apiToken: 'r8_test_token', baseUrl: replicate.baseUrl, timeoutSeconds: 1 },
      pollIntervalMs: 50,
    },
  };
});
afterAll(async () => {
  await fal?.close();
  await replicate?.close();
});

const developer = useFundedDeveloper(gateway);

/** Two FLUX schnell images: quoted at 2 × $0.003. */
const schnell = (prompt: string) => ({
  type: 'text-to-image',
  model: 'fal/flux-schnell',
  prompt,
  num_outputs: 2,
  aspect_ratio: '16:9',
});
const quoted = 6_000n;
const generate = (body: object) => generateAndWait(gateway, { key: developer.key, body, timeoutMs: 60_000 });

const fallbacksCounted = async () =>
  (await metrics.providerFallbacks.get()).values.find(
    ({ labels }) => labels.model === 'fal/flux-schnell' && labels.from === 'fal' && labels.to === 'replicate',
  )?.value ?? 0;

/** The task's row and its ledger entries, the balance checked against the ledger. */
const settled = async (taskId: string) => ({
  row: await gateway.database.prisma.task.findUniqueOrThrow({ where: { id: taskId } }),
  entries: await gateway.database.prisma.ledgerEntry.findMany({ where: { taskId }, orderBy: { id: 'asc' } }),
  balance: await checkedBalance(gateway.database.prisma, developer.accountId),
});

describe('provider fallback', () => {
  it('an outage at fal (503 through the retry budget) hands the task to Replicate, charged the quote once', async () => {
    const before = await checkedBalance(gateway.database.prisma, developer.accountId);
    const [refused, created, counted] = [fal.unavailable, replicate.created.length, await fallbacksCounted()];
    const task = await generate(schnell('a lighthouse at dusk [[503]]'));
    expect(task).toMatchObject({ status: 'completed', model: 'fal/flux-schnell', cost: 0.006, served_by: 'replicate' });
    expect(task.outputs).toHaveLength(2);
    // Five attempts at fal (the activity's retry budget), then one prediction at Replicate under its own names.
    expect(fal.unavailable - refused).toBe(5);
    expect(replicate.created.slice(created)).toEqual([
      expect.objectContaining({
        model: 'black-forest-labs/flux-schnell',
        input: { prompt: 'a lighthouse at dusk [[503]]', num_outputs: 2, aspect_ratio: '16:9' },
      }),
    ]);
    const { row, entries, balance } = await settled(task.id);
    expect(row).toMatchObject({ servedBy: 'replicate', costCharged: quoted });
    expect(entries.map(({ kind, amount, reservedDelta }) => ({ kind, amount, reservedDelta }))).toEqual([
      { kind: 'reserve', amount: 0n, reservedDelta: quoted },
      { kind: 'charge', amount: -quoted, reservedDelta: -quoted },
    ]);
    expect(before.balance - balance.balance).toBe(quoted);
    expect(balance.reserved).toBe(before.reserved);
    expect((await fallbacksCounted()) - counted).toBe(1);
    // The history shows the switch: the second call ran on Replicate's queue, and GenProvider names Replicate.
    // The row completes before the workflow records its serving provider: wait for the workflow to close first.
    const handle = gateway.env.client.workflow.getHandle(task.id);
    await handle.result();
    expect((await handle.describe()).typedSearchAttributes.get(genProvider)).toBe('replicate');
    const scheduled = (await handle.fetchHistory()).events!.flatMap((event) => {
      const attributes = event.activityTaskScheduledEventAttributes;
      return attributes?.activityType?.name === 'generateOutputs' ? [attributes.taskQueue!.name] : [];
    });
    const main = gateway.config.temporal.taskQueue;
    expect(scheduled).toEqual([`${main}-fal`, `${main}-replicate`]);
  });

  it('a request fal refuses as bad input (422) fails, refunded, and is not sent to Replicate', async () => {
    const before = await checkedBalance(gateway.database.prisma, developer.accountId);
    const [created, counted] = [replicate.created.length, await fallbacksCounted()];
    const task = await generate(schnell('not allowed [[422]]'));
    expect(task).toMatchObject({ status: 'failed', cost: 0 });
    expect(task.error).toMatch(/^The provider rejected the request \(HTTP 422\)/);
    expect(task.served_by).toBeUndefined();
    expect(replicate.created.length).toBe(created);
    const { row, balance } = await settled(task.id);
    expect(row.servedBy).toBeNull();
    expect(balance).toEqual(before);
    expect(await fallbacksCounted()).toBe(counted);
  });

  it('the model runs on its own provider while it answers: served_by says fal, nothing falls back', async () => {
    const created = replicate.created.length;
    const task = await generate(schnell('a calm sea'));
    expect(task).toMatchObject({ status: 'completed', cost: 0.006, served_by: 'fal' });
    expect(fal.submitted.at(-1)).toMatchObject({ endpoint: 'fal-ai/flux/schnell' });
    expect(replicate.created.length).toBe(created);
  });

  it('with fal not configured on this server, the model is still offered and runs on Replicate', async () => {
    const key = gateway.config.providers.fal.key;
    gateway.config.providers.fal.key = undefined;
    await gateway.restartWorkers();
    try {
      const [submitted, created, counted] = [fal.submitted.length, replicate.created.length, await fallbacksCounted()];
      const task = await generate(schnell('a quiet harbour'));
      expect(task).toMatchObject({ status: 'completed', cost: 0.006, served_by: 'replicate' });
      expect(fal.submitted.length).toBe(submitted);
      expect(replicate.created.length).toBe(created + 1);
      expect((await fallbacksCounted()) - counted).toBe(1);
    } finally {
      gateway.config.providers.fal.key = key;
      await gateway.restartWorkers();
    }
  });
});
