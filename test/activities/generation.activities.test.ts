// The money-moving activities of the generation workflow, each run twice with the same input as a retried
// activity would be: the second run must find the first one's work and move nothing.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGenerationActivities } from '../../activities/generation.activities.ts';
import type { AdmitInput } from '../../workflows/contracts/generation.types.ts';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import { loadConfig } from '../../src/config/config.ts';
import { configuredFacilitator } from '../../src/payments/methods/x402/facilitator.ts';
import { newId } from '../../src/domain/ids.ts';
import { credit, ledgerTotals } from '../../src/ledger/ledger.ts';
import { createFundedAccount } from '../helpers/accounts.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { parseSamples, sumOf } from '../helpers/prometheus.ts';
import { registry } from '../../src/metrics/metrics.ts';
import { testFilesDir, testStorage } from '../helpers/app.ts';
import { webhookStarter } from '../../src/use-cases/temporal/worker-starter.ts';

let database: TestDatabase;
let activities: ReturnType<typeof createGenerationActivities>;
beforeAll(async () => {
  database = await createTestDatabase();
  const config = loadConfig({}, []);
  activities = createGenerationActivities({
    prisma: database.prisma,
    storage: testStorage(),
    catalog: loadCatalog(),
    config,
    facilitator: configuredFacilitator(config),
    starter: webhookStarter({ prisma: database.prisma, config }),
  });
});
afterAll(() => database.drop());

/** Runs an activity in an activity context, as a worker does. */
const runActivity = <A extends unknown[], R>(activity: (...args: A) => Promise<R>, ...args: A): Promise<R> =>
  new MockActivityEnvironment().run(activity, ...args);

/** An account holding 1.00 and an admission input for a 0.30 task of it. */
async function newAdmission(): Promise<AdmitInput> {
  const accountId = await createFundedAccount(database.prisma, { deposit: 1_000_000n });
  return {
    taskId: newId('gen'),
    accountId,
    request: { type: 'upscale', model: 'local/lanczos', image_url: 'https://inputs.test/a.png' },
    costMicros: '300000',
    idempotencyKey: null,
  };
}

/** The task's ledger entries and the account's balance row, after checking the ledger still sums to that row. */
async function moneyOf({ accountId, taskId }: AdmitInput) {
  const [row, totals, entries] = await Promise.all([
    database.prisma.balance.findUniqueOrThrow({ where: { accountId } }),
    ledgerTotals(database.prisma, accountId),
    database.prisma.ledgerEntry.findMany({ where: { taskId }, orderBy: { id: 'asc' } }),
  ]);
  expect({ balance: totals.balance, reserved: totals.reserved }).toEqual({
    balance: row.balance,
    reserved: row.reserved,
  });
  return {
    entries: entries.map((entry) => [entry.kind, entry.amount, entry.reservedDelta, entry.idempotencyKey]),
    balance: row.balance,
    reserved: row.reserved,
  };
}

/** The metrics of local/lanczos tasks (the model every admission here is for): counted once per task end. */
async function lanczosMetrics() {
  const samples = parseSamples(await registry.metrics());
  const model = { model: 'local/lanczos', provider: 'local' };
  return {
    completed: sumOf(samples, 'gateway_tasks_ended_total', { ...model, status: 'completed' }),
    failed: sumOf(samples, 'gateway_tasks_ended_total', { ...model, status: 'failed' }),
    charged: sumOf(samples, 'gateway_money_charged_micro_usd_total', model),
    released: sumOf(samples, 'gateway_money_released_micro_usd_total', model),
  };
}
const minus = (after: Record<string, number>, before: Record<string, number>) =>
  Object.fromEntries(Object.entries(after).map(([key, value]) => [key, value - before[key]!]));

describe('each money-moving activity, called twice with the same input, moves money once', () => {
  it('admitTask reserves the cost once and writes one task row', async () => {
    const input = await newAdmission();
    const first = await runActivity(activities.admitTask, input);
    const second = await runActivity(activities.admitTask, input);
    expect(first).toMatchObject({
      outcome: 'admitted',
      task: { id: input.taskId, status: 'queued', cost: 0.3 },
      processing: { id: input.taskId, status: 'processing', cost: 0.3 },
    });
    // The repeat finds the row the first admitted, and marked processing: the same task, nothing more reserved.
    expect(second).toEqual({ ...first, task: first.outcome === 'admitted' && first.processing });
    expect(await database.prisma.task.count({ where: { id: input.taskId } })).toBe(1);
    expect(await moneyOf(input)).toEqual({
      entries: [['reserve', 0n, 300_000n, `${input.taskId}:reserve`]],
      balance: 1_000_000n,
      reserved: 300_000n,
    });
  });

  it('admitTask stays admitted when the database refuses to mark the task processing after the row committed', async () => {
    const input = await newAdmission();
    // PostgreSQL itself refuses this task's move to processing, as a database lost right after the commit would.
    await database.prisma.$executeRawUnsafe(`
      CREATE FUNCTION refuse_processing() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused for the test'; END $$`);
    await database.prisma.$executeRawUnsafe(`
      CREATE TRIGGER refuse_processing BEFORE UPDATE ON tasks FOR EACH ROW
      WHEN (NEW.id = '${input.taskId}' AND NEW.status = 'processing') EXECUTE FUNCTION refuse_processing()`);
    try {
      const admitted = await runActivity(activities.admitTask, input);
      // Admitted and reserved, still queued: the workflow marks it processing in a step of its own.
      expect(admitted).toMatchObject({ outcome: 'admitted', task: { id: input.taskId, status: 'queued' } });
      expect(admitted).not.toHaveProperty('processing', expect.anything());
      expect(await moneyOf(input)).toMatchObject({ reserved: 300_000n });
    } finally {
      await database.prisma.$executeRawUnsafe('DROP TRIGGER refuse_processing ON tasks');
      await database.prisma.$executeRawUnsafe('DROP FUNCTION refuse_processing()');
    }
    expect(await runActivity(activities.markProcessing, input.taskId)).toMatchObject({ status: 'processing' });
  });

  it('settleTask charges once and releases nothing more', async () => {
    const input = await newAdmission();
    await runActivity(activities.admitTask, input);
    await runActivity(activities.markProcessing, input.taskId);
    const settle = { taskId: input.taskId, modelId: input.request.model, outputs: ['http://files.test/out.png'] };
    const before = await lanczosMetrics();
    const { task: first } = await runActivity(activities.settleTask, settle);
    const { task: second } = await runActivity(activities.settleTask, settle);
    // Counted by the call that ended the task, not again by its retry.
    expect(minus(await lanczosMetrics(), before)).toEqual({ completed: 1, failed: 0, charged: 300_000, released: 0 });
    expect(first).toMatchObject({ status: 'completed', cost: 0.3, output: 'http://files.test/out.png' });
    expect(second).toEqual(first);
    expect(await moneyOf(input)).toEqual({
      entries: [
        ['reserve', 0n, 300_000n, `${input.taskId}:reserve`],
        ['charge', -300_000n, -300_000n, `${input.taskId}:charge`],
      ],
      balance: 700_000n,
      reserved: 0n,
    });
  });

  it('failTask releases the reservation once', async () => {
    const input = await newAdmission();
    await runActivity(activities.admitTask, input);
    const failure = { taskId: input.taskId, error: 'The generation failed at the provider.' };
    const before = await lanczosMetrics();
    const first = await runActivity(activities.failTask, failure);
    const second = await runActivity(activities.failTask, failure);
    expect(minus(await lanczosMetrics(), before)).toEqual({ completed: 0, failed: 1, charged: 0, released: 300_000 });
    expect(first).toMatchObject({ status: 'failed', error: failure.error, cost: 0 });
    expect(second).toEqual(first);
    expect(await moneyOf(input)).toEqual({
      entries: [
        ['reserve', 0n, 300_000n, `${input.taskId}:reserve`],
        ['release', 0n, -300_000n, `${input.taskId}:release`],
      ],
      balance: 1_000_000n,
      reserved: 0n,
    });
  });
});

describe('failTask removes the outputs a failed task never delivered', () => {
  const storedOutput = (taskId: string) => join(testFilesDir, taskId, 'output-0.png');
  const store = async (taskId: string) => {
    await mkdir(join(testFilesDir, taskId), { recursive: true });
    await writeFile(storedOutput(taskId), 'png');
  };

  it("deletes the task's stored files when it fails (an x402 payment that never settled, a cancel)", async () => {
    const input = await newAdmission();
    await runActivity(activities.admitTask, input);
    await store(input.taskId);
    await runActivity(activities.failTask, { taskId: input.taskId, error: 'The payment did not settle.' });
    expect(existsSync(join(testFilesDir, input.taskId))).toBe(false);
  });

  it('keeps them when the task had completed before (a late failTask changes nothing)', async () => {
    const input = await newAdmission();
    await runActivity(activities.admitTask, input);
    await store(input.taskId);
    const settle = { taskId: input.taskId, modelId: input.request.model, outputs: ['http://files.test/out.png'] };
    await runActivity(activities.settleTask, settle);
    await runActivity(activities.failTask, { taskId: input.taskId, error: 'too late' });
    expect(existsSync(storedOutput(input.taskId))).toBe(true);
  });
});

describe('a workflow run decides its admission once (issue 16)', () => {
  const inRun = (runId: string) => new MockActivityEnvironment({ workflowExecution: { workflowId: 'gen', runId } });

  it('after a refusal, a late attempt of the same run admits nothing, even once the funds suffice', async () => {
    const input = { ...(await newAdmission()), costMicros: '2000000' };
    expect(await inRun('run-1').run(activities.admitTask, input)).toEqual({
      outcome: 'insufficient_funds',
      availableMicros: '1000000',
    });
    await credit(database.prisma, {
      accountId: input.accountId,
      amount: 5_000_000n,
      kind: 'adjustment',
      idempotencyKey: `topup:${input.taskId}`,
    });
    await expect(inRun('run-1').run(activities.admitTask, input)).rejects.toMatchObject({
      type: 'AdmissionAbandoned',
      nonRetryable: true,
    });
    expect(await database.prisma.task.findUnique({ where: { id: input.taskId } })).toBeNull();
    expect((await moneyOf(input)).reserved).toBe(0n);
    // A new run of the task (the caller retried) decides afresh.
    expect(await inRun('run-2').run(activities.admitTask, input)).toMatchObject({ outcome: 'admitted' });
    expect((await moneyOf(input)).reserved).toBe(2_000_000n);
  });

  it('a run that gave up without a row (failTask) leaves a tombstone; one whose row committed first is released', async () => {
    const gaveUp = await newAdmission();
    const failure = { taskId: gaveUp.taskId, error: 'The task could not be admitted.' };
    expect(await inRun('run-1').run(activities.failTask, failure)).toBeNull();
    await expect(inRun('run-1').run(activities.admitTask, gaveUp)).rejects.toMatchObject({
      type: 'AdmissionAbandoned',
    });
    expect((await moneyOf(gaveUp)).entries).toEqual([]);

    const committedFirst = await newAdmission();
    await inRun('run-1').run(activities.admitTask, committedFirst);
    await inRun('run-1').run(activities.failTask, { ...failure, taskId: committedFirst.taskId });
    expect(await moneyOf(committedFirst)).toMatchObject({ balance: 1_000_000n, reserved: 0n });
  });
});
