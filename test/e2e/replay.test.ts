// genctl tasks replay through the real stack (Temporal dev server, PostgreSQL, the worker's real activities, the
// API): 20 failed tasks (a local model whose input was missing), replayed in a batch workflow once the input is back.
import { createServer, type Server } from 'node:http';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replaySelectionOf } from '../../src/cli/replay-commands.ts';
import { newId } from '../../src/domain/ids.ts';
import { charge, ledgerTotals, reserve } from '../../src/ledger/ledger.ts';
import { replayBatchId } from '../../src/generations/replay-selection.ts';
import { skipReasons } from '../../src/domain/replay-reasons.ts';
import type { ReplayProgress } from '../../workflows/contracts/replay-batch.types.ts';
import { runGenctl } from '../helpers/genctl.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { call, startGeneration, waitForEnd } from '../helpers/http.ts';
import { listenLocally } from '../../harness/local-server.ts';

const stack = useGateway();
// One account pays for its replays; the other spent its balance since its tasks failed.
const payer = useFundedDeveloper(stack);
const broke = useFundedDeveloper(stack, { amount: 1_500n });
const upscaleCost = 500n;

let inputs: Server;
let inputUp = false;
let since: string;
let until: string;
const payerTasks: string[] = [];
const brokeTasks: string[] = [];
let x402Task: string;

const genctl = (...args: string[]) =>
  runGenctl(
    {
      DATABASE_URL: stack.database.url,
      TEMPORAL_ADDRESS: stack.env.address,
      TEMPORAL_TASK_QUEUE: stack.config.temporal.taskQueue,
    },
    ['tasks', 'replay', '--status', 'failed', '--since', since, '--until', until, ...args],
  );

/** A task of `key` for an input that 404s until the test brings it back; waits until it has failed. */
async function failedTask(key: string, inputUrl: string): Promise<string> {
  const body = { type: 'upscale', model: 'local/lanczos', image_url: inputUrl, resolution: '4x' };
  const id = await startGeneration(stack, { key, body });
  const ended = await waitForEnd(stack, { key, pollUrl: `/generations/${id}` });
  expect(ended).toMatchObject({ status: 'failed', error: expect.stringMatching(/HTTP 404/) });
  return id;
}

/** A failed task paid with x402 (its payment abandoned), as the x402 path leaves one: a wallet account, no balance. */
async function failedX402Task(): Promise<string> {
  const { prisma } = stack.database;
  const walletId = newId('wal');
  const taskId = newId('gen');
  await prisma.account.create({ data: { id: walletId, kind: 'wallet', name: '0xpayer', balance: { create: {} } } });
  const request = { type: 'upscale', model: 'local/lanczos', image_url: 'http://127.0.0.1:9/x.png', resolution: '4x' };
  await prisma.task.create({
    data: {
      id: taskId,
      accountId: walletId,
      type: request.type,
      model: request.model,
      status: 'failed',
      request,
      costReserved: upscaleCost,
      error: 'could not download http://127.0.0.1:9/x.png: HTTP 404',
      completedAt: new Date(),
      payment: {
        create: {
          accountId: walletId,
          scheme: 'exact',
          network: 'eip155:8453',
          asset: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
          payer: '0x00000000000000000000000000000000000000aa',
          payTo: '0x00000000000000000000000000000000000000bb',
          nonce: `0x${'ab'.repeat(32)}`,
          amount: upscaleCost,
          validBefore: new Date(Date.now() + 600_000),
          payload: {},
          requirement: {},
          accessToken: newId('key'),
          status: 'abandoned',
        },
      },
    },
  });
  return taskId;
}

beforeAll(async () => {
  const png = await sharp({ create: { width: 16, height: 10, channels: 3, background: '#3366cc' } })
    .png()
    .toBuffer();
  inputs = createServer((_req, res) => {
    if (inputUp) res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    else res.writeHead(404).end();
  });
  const inputUrl = `${(await listenLocally(inputs)).url}/input.png`;

  since = new Date(Date.now() - 1000).toISOString();
  for (let index = 0; index < 16; index++) payerTasks.push(await failedTask(payer.key, inputUrl));
  for (let index = 0; index < 3; index++) brokeTasks.push(await failedTask(broke.key, inputUrl));
  x402Task = await failedX402Task();
  // The broke account's balance goes to other work: it can no longer pay for a replay.
  const spent = { accountId: broke.accountId, amount: 1_500n, taskId: newId('gen') };
  await reserve(stack.database.prisma, { ...spent, idempotencyKey: `${spent.taskId}:reserve` });
  await charge(stack.database.prisma, { ...spent, idempotencyKey: `${spent.taskId}:charge` });
  until = new Date(Date.now() + 1000).toISOString();
  inputUp = true;
}, 120_000);

afterAll(() => {
  inputs?.close();
});

/** Balances equal the sum of their ledger entries, nothing stays reserved, and each replay was charged once. */
async function expectLedgerHolds(): Promise<void> {
  const { prisma } = stack.database;
  for (const accountId of [payer.accountId, broke.accountId]) {
    const row = await prisma.balance.findUniqueOrThrow({ where: { accountId } });
    const totals = await ledgerTotals(prisma, accountId);
    expect({ balance: row.balance, reserved: row.reserved }).toEqual({ balance: totals.balance, reserved: 0n });
  }
  const replays = await prisma.task.findMany({ where: { replayOf: { not: null } }, select: { id: true } });
  const charges = await prisma.ledgerEntry.findMany({
    where: { kind: 'charge', taskId: { in: replays.map((replay) => replay.id) } },
  });
  expect(charges.map((entry) => entry.amount)).toEqual(replays.map(() => -upscaleCost));
}

const skippedByReason = {
  [skipReasons.insufficientBalance]: 3,
  [skipReasons.x402]: 1,
};

describe('genctl tasks replay', () => {
  it('--dry-run lists what would be replayed and skipped, and starts nothing', async () => {
    const dry = await genctl('--dry-run', '--json');
    expect(dry.code).toBe(0);
    expect(dry.json).toMatchObject({ dry_run: true, would_replay: 16, would_skip: 4 });
    const reasons = dry.json.tasks.filter((task: any) => task.plan === 'skip').map((task: any) => task.reason);
    expect(reasons.sort()).toEqual([...Array(3).fill(skipReasons.insufficientBalance), skipReasons.x402].sort());
    // The filters narrow the same selection.
    const [byAccount, byError, byProvider] = await Promise.all([
      genctl('--dry-run', '--json', '--account', broke.accountId),
      genctl('--dry-run', '--json', '--error', 'http 404', '--limit', '5'),
      genctl('--dry-run', '--json', '--provider', 'fal'),
    ]);
    expect([byAccount, byError, byProvider].map((run) => run.json.tasks.length)).toEqual([3, 5, 0]);
    expect(await stack.database.prisma.task.count()).toBe(20);
  }, 120_000);

  it('replays the payable tasks once, though the worker stops mid-batch, and skips the rest with reasons', async () => {
    const batchId = replayBatchId(replaySelectionOf({ status: 'failed', since, until }));
    const running = genctl('--rate', '4', '--json');
    const progress = () =>
      stack.env.client.workflow
        .getHandle(batchId)
        .query<ReplayProgress>('progress')
        .catch(() => undefined);
    // The worker stops (its running activities drain) and a new one takes the batch over.
    await expect
      .poll(async () => (await progress())?.replayed ?? 0, { timeout: 30_000, interval: 100 })
      .toBeGreaterThanOrEqual(3);
    expect((await progress())!.remaining).toBeGreaterThan(0);
    await stack.restartWorkers();

    const result = await running;
    expect(result.code).toBe(0);
    expect(result.json).toMatchObject({
      batch_id: batchId,
      state: 'done',
      selected: 20,
      replayed: 16,
      completed: 16,
      failed_again: 0,
      pending: 0,
      skipped: 4,
      skipped_by_reason: skippedByReason,
    });
    const { prisma } = stack.database;
    for (const original of payerTasks) {
      const replays = await prisma.task.findMany({ where: { replayOf: original } });
      expect(replays.map((replay) => replay.status)).toEqual(['completed']);
    }
    expect(await prisma.task.count({ where: { replayOf: { in: [...brokeTasks, x402Task] } } })).toBe(0);
    await expectLedgerHolds();

    // The replay is a task of its own, linked to the original.
    const [original] = payerTasks;
    const replayId = result.json.items.find((item: any) => item.task_id === original).replay_id;
    const read = await call(stack, 'GET', `/generations/${replayId}`, { key: payer.key });
    expect(read.body).toMatchObject({ id: replayId, status: 'completed', replay_of: original });
  }, 120_000);

  it('the same batch run again, or another batch over the same tasks, replays nothing: already replayed', async () => {
    const before = await stack.database.prisma.task.count();
    const [again, other] = await Promise.all([genctl(), genctl('--batch-id', 'another-batch', '--json')]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/Replayed\s+0\n/);
    expect(again.stdout).toMatch(/already replayed\s+16\n/);
    expect(again.stdout).toMatch(/insufficient balance\s+3\n/);
    expect(other.json).toMatchObject({ batch_id: 'another-batch', replayed: 0, skipped: 20 });
    expect(await stack.database.prisma.task.count()).toBe(before);
    await expectLedgerHolds();
  }, 120_000);
});
