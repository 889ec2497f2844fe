// POST /generations/{id}/cancel through the real stack (dev server, PostgreSQL, the worker's real activities), at
// each stage a task can be in: queued (waiting for its admission, or for a provider slot), processing (a local
// engine downloading a held input) and an upstream job running (fal and Replicate stand-ins, which record the cancel
// their documented APIs receive). Each ends failed with error "cancelled", everything it reserved released.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateGenerationBodySchema } from '../../src/api/resources/generations/generations.schemas.ts';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import { NotFoundError } from '../../src/domain/errors.ts';
import { cancelGeneration } from '../../src/use-cases/generations/cancel.ts';
import { admitTask } from '../../src/generations/tasks.ts';
import { generationWorkflow } from '../../workflows/generation/generation.workflow.ts';
import { checkedBalance } from '../helpers/balance.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { type ApiResponse, call, startGeneration, waitForEnd } from '../helpers/http.ts';
import { closeServer, listenLocally } from '../../harness/local-server.ts';
import { type OutputMedia, outputKind, outputMedia } from '../helpers/media.ts';
import { type Receiver, startReceiver } from '../../harness/webhook-receiver.ts';
import { balanceGenerationInput } from '../helpers/generation-input.ts';
import { type FalStandIn, falStandInUserId, startFalStandIn } from '../stand-ins/fal-queue.ts';
import { type ReplicateStandIn, startReplicateStandIn } from '../stand-ins/replicate.ts';

let fal: FalStandIn;
let replicate: ReplicateStandIn;
let media: OutputMedia;
let receiver: Receiver;
let inputs: Server;
let inputsUrl: string;
/** Downloads of /held-… inputs: never answered; `aborted` once the downloader hung up. */
const held: { path: string; aborted: boolean }[] = [];

const catalog = loadCatalog();
const kindOf = (reference: string) =>
  outputKind(
    catalog.models.find((model) => model.upstream.model === reference)?.capabilities.output_modalities ?? ['image'],
  );

const gateway = useGateway(async () => {
  media = await outputMedia();
  [fal, replicate] = await Promise.all([
    startFalStandIn({ key: 'fal-test-key', media, kindOf }),
    startReplicateStandIn({ token: 'r8_test_token', media, kindOf }),
  ]);
  return {
    providers: {
      fal: { key: 'fal-test-key', queueUrl: fal.queueUrl, jwksUrl: fal.jwksUrl, userId: falStandInUserId },
      replicate: { apiToken: 'r8_test_token', baseUrl: replicate.baseUrl },
      pollIntervalMs: 50,
      // One local engine slot: a second local task waits for it, queued behind the first.
      local: { concurrency: 1 },
    },
  };
});
const developer = useFundedDeveloper(gateway);
const someoneElse = useFundedDeveloper(gateway);

beforeAll(async () => {
  receiver = await startReceiver();
  const png = await sharp({ create: { width: 16, height: 10, channels: 3, background: '#3366cc' } })
    .png()
    .toBuffer();
  inputs = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (!req.url?.startsWith('/held-')) return void res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    const download = { path: req.url, aborted: false };
    held.push(download);
    res.on('close', () => {
      download.aborted = !res.writableEnded;
    });
  });
  inputsUrl = (await listenLocally(inputs)).url;
});
afterAll(async () => {
  await Promise.all([inputs && closeServer(inputs), fal?.close(), replicate?.close(), receiver?.close()]);
});

const webhook_url = () => receiver.url;
const localUpscale = (path: string) => ({
  type: 'upscale',
  model: 'local/lanczos',
  image_url: `${inputsUrl}${path}`,
  webhook_url: webhook_url(),
});
const falImage = () => ({
  type: 'text-to-image',
  model: 'fal/flux-dev',
  prompt: 'wait [[slow]]',
  webhook_url: webhook_url(),
});
const replicateUpscale = () => ({
  type: 'upscale',
  model: 'replicate/real-esrgan',
  image_url: 'https://images.example/wait-[[slow]].png',
  resolution: '4x',
  webhook_url: webhook_url(),
});

const cancel = (taskId: string, key = developer.key) => call(gateway, 'POST', `/generations/${taskId}/cancel`, { key });
const rowOf = (taskId: string) => gateway.database.prisma.task.findUniqueOrThrow({ where: { id: taskId } });

/** The balance row, checked against the ledger's sums. */
const moneyOf = (accountId: string) => checkedBalance(gateway.database.prisma, accountId);

/**
 * A cancel's answer: 200 with the ended task when the cancel landed within the call's short wait (the usual case), else
 * 202 with the task as it is now (a loaded machine, a local engine between heartbeats).
 */
function expectAccepted(response: ApiResponse, taskId: string) {
  expect([200, 202]).toContain(response.status);
  expect(response.body).toMatchObject(
    response.status === 200
      ? { id: taskId, status: 'failed', error: 'cancelled' }
      : { id: taskId, status: expect.stringMatching(/^(queued|processing)$/) },
  );
}

/**
 * Waits until the task has ended and checks what a cancel leaves: failed with error "cancelled", its reservation
 * released to the micro-USD (one reserve, one release, under the task's keys), the money as `before`, and one
 * generation.failed webhook saying so.
 */
async function expectCancelled(taskId: string, before: { balance: bigint; reserved: bigint }) {
  const task = await waitForEnd(gateway, { key: developer.key, pollUrl: `/generations/${taskId}`, timeoutMs: 20_000 });
  expect(task).toMatchObject({ id: taskId, status: 'failed', error: 'cancelled', cost: 0 });
  const entries = await gateway.database.prisma.ledgerEntry.findMany({ where: { taskId }, orderBy: { id: 'asc' } });
  expect(entries.map((entry) => [entry.kind, entry.idempotencyKey])).toEqual([
    ['reserve', `${taskId}:reserve`],
    ['release', `${taskId}:release`],
  ]);
  expect(entries[0]!.reservedDelta).toBe((await rowOf(taskId)).costReserved);
  expect(entries[1]!.reservedDelta).toBe(-entries[0]!.reservedDelta);
  expect(await moneyOf(developer.accountId)).toEqual(before);
  await expect
    .poll(() => receiver.received.map((hook) => JSON.parse(hook.body)).filter((hook) => hook.data?.id === taskId), {
      timeout: 15_000,
    })
    .toEqual([{ event: 'generation.failed', data: expect.objectContaining({ status: 'failed', error: 'cancelled' }) }]);
  return task;
}

/**
 * A task admitted (row `queued`, cost reserved) whose workflow never heard its admission, as Temporal can leave it:
 * the workflow `waiting` for it, or `missing`.
 */
async function queuedTask(workflow: 'waiting' | 'missing') {
  const deps = { config: gateway.config, catalog: gateway.catalog };
  const request = {
    accountId: developer.accountId,
    accountKind: 'developer' as const,
    body: CreateGenerationBodySchema.parse(localUpscale('/input.png')),
    idempotencyKey: null,
  };
  const input = balanceGenerationInput(deps, request);
  await admitTask(gateway.database.prisma, { ...input, costMicros: BigInt(input.costMicros) });
  if (workflow === 'waiting')
    await gateway.env.client.workflow.start(generationWorkflow, {
      workflowId: input.taskId,
      taskQueue: gateway.config.temporal.taskQueue,
      args: [input],
    });
  expect((await rowOf(input.taskId)).status).toBe('queued');
  return input.taskId;
}

describe('POST /generations/{id}/cancel', () => {
  it.each(['waiting', 'missing'] as const)(
    'a queued task (its workflow %s for the admission) ends failed "cancelled", everything released',
    async (workflow) => {
      const before = await moneyOf(developer.accountId);
      const taskId = await queuedTask(workflow);
      const cancelled = await cancel(taskId);
      // Without a workflow, the call itself ends the task: always 200 with it.
      if (workflow === 'missing')
        expect(cancelled).toMatchObject({ status: 200, body: { id: taskId, status: 'failed', error: 'cancelled' } });
      else expectAccepted(cancelled, taskId);
      await expectCancelled(taskId, before);
    },
  );

  it('a task queued for a provider slot, then the one holding the slot (a local engine mid-download)', async () => {
    const before = await moneyOf(developer.accountId);
    const running = await startGeneration(gateway, { key: developer.key, body: localUpscale('/held-1.png') });
    await expect.poll(() => held.some((download) => download.path === '/held-1.png'), { timeout: 15_000 }).toBe(true);
    // The only slot is taken: this one waits behind it, its input never asked for.
    const waiting = await startGeneration(gateway, { key: developer.key, body: localUpscale('/held-2.png') });
    await expect.poll(async () => (await rowOf(waiting)).status, { timeout: 10_000 }).toBe('processing');

    expectAccepted(await cancel(waiting), waiting);
    await expect.poll(async () => (await rowOf(waiting)).status, { timeout: 15_000 }).toBe('failed');
    expect(held.map((download) => download.path)).not.toContain('/held-2.png');

    // The engine hears of the cancel at its next heartbeat.
    expectAccepted(await cancel(running), running);
    await expectCancelled(running, before);
    await expectCancelled(waiting, before);
    // The download of the held input was abandoned, not waited out.
    expect(held.find((download) => download.path === '/held-1.png')?.aborted).toBe(true);
  });

  it('an upstream job running at fal is cancelled there (PUT …/cancel)', async () => {
    const before = await moneyOf(developer.accountId);
    const taskId = await startGeneration(gateway, { key: developer.key, body: falImage() });
    await expect.poll(() => fal.submitted.length, { timeout: 10_000 }).toBeGreaterThan(0);
    const job = fal.submitted.at(-1)!;
    await expect.poll(() => fal.statusCalls.get(job.requestId) ?? 0, { timeout: 10_000 }).toBeGreaterThan(0);

    expectAccepted(await cancel(taskId), taskId);
    await expectCancelled(taskId, before);
    expect(fal.cancelled).toContain(job.requestId);
  });

  it('an upstream prediction running at Replicate is cancelled there (POST …/cancel)', async () => {
    const before = await moneyOf(developer.accountId);
    const taskId = await startGeneration(gateway, { key: developer.key, body: replicateUpscale() });
    await expect.poll(() => replicate.created.length, { timeout: 10_000 }).toBeGreaterThan(0);
    const prediction = replicate.created.at(-1)!;
    await expect.poll(() => replicate.gets.get(prediction.id) ?? 0, { timeout: 10_000 }).toBeGreaterThan(0);

    expectAccepted(await cancel(taskId), taskId);
    await expectCancelled(taskId, before);
    expect(replicate.cancelled).toContain(prediction.id);
  });

  it('cancelling twice is fine: the same answer, one release', async () => {
    const before = await moneyOf(developer.accountId);
    const taskId = await startGeneration(gateway, { key: developer.key, body: localUpscale('/held-twice.png') });
    const [first, second] = await Promise.all([cancel(taskId), cancel(taskId)]);
    expect([first.status, second.status].every((status) => status === 200 || status === 202)).toBe(true);
    await expectCancelled(taskId, before);
    const again = await cancel(taskId);
    expect(again).toMatchObject({ status: 200, body: { id: taskId, status: 'failed', error: 'cancelled' } });
    expect(await moneyOf(developer.accountId)).toEqual(before);
  });

  it('a finished task answers 409 naming its status, and nothing moves', async () => {
    const created = await call(gateway, 'POST', '/generations', {
      key: developer.key,
      body: localUpscale('/input.png'),
    });
    const task = await waitForEnd(gateway, { key: developer.key, pollUrl: created.body.poll_url });
    expect(task.status).toBe('completed');
    const before = await moneyOf(developer.accountId);
    const refused = await cancel(task.id);
    expect(refused).toMatchObject({ status: 409, body: { error: 'conflict', status: 'completed' } });
    expect(refused.body.message).toMatch(/completed/);
    expect(await moneyOf(developer.accountId)).toEqual(before);
    expect(await rowOf(task.id)).toMatchObject({ status: 'completed' });
  });

  it("someone else's task answers 404 exactly like a task that does not exist, and keeps running", async () => {
    const taskId = await startGeneration(gateway, { key: developer.key, body: falImage() });
    const theirs = await cancel(taskId, someoneElse.key);
    const unknownId = `gen_${'0'.repeat(22)}`;
    const unknown = await cancel(unknownId, someoneElse.key);
    expect(theirs.status).toBe(404);
    expect({ ...theirs.body, message: theirs.body.message.replace(taskId, 'ID') }).toEqual({
      ...unknown.body,
      message: unknown.body.message.replace(unknownId, 'ID'),
    });
    expect((await rowOf(taskId)).status).not.toBe('failed');
    expectAccepted(await cancel(taskId), taskId);
  });

  it("a task token cancels its own task only (the service's owner check)", async () => {
    const taskId = await queuedTask('missing');
    const deps = {
      prisma: gateway.database.prisma,
      temporal: { client: gateway.env.client, taskQueue: gateway.config.temporal.taskQueue },
      config: gateway.config,
    };
    const owner = { accountId: developer.accountId, onlyTask: `gen_${'1'.repeat(22)}` };
    await expect(cancelGeneration(deps, { taskId, owner })).rejects.toBeInstanceOf(NotFoundError);
    expect((await rowOf(taskId)).status).toBe('queued');
    const own = await cancelGeneration(deps, { taskId, owner: { ...owner, onlyTask: taskId } });
    expect(own).toMatchObject({ ended: true, task: { status: 'failed', error: 'cancelled' } });
  });
});
