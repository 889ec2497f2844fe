// Admission that cannot succeed ends, on the dev server (update-with-start, as the api does): a deterministic database
// refusal fails at once, a failure that keeps recurring gives up after a bounded number of attempts. Either way the
// api learns it in seconds, nothing is reserved, no task row is written and the workflow closes. An attempt still under
// way when the workflow gave up (a slow database) can never commit a reservation after it; a row one committed before
// is adopted, and a retried POST attaches to it.
import { MockActivityEnvironment, type TestWorkflowEnvironment } from '@temporalio/testing';
import { configuredFacilitator } from '../../src/payments/methods/x402/facilitator.ts';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGenerationActivities, type GenerationActivities } from '../../activities/generation.activities.ts';
import { createWebhookActivities } from '../../activities/webhook.activities.ts';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import { loadConfig } from '../../src/config/config.ts';
import { ledgerTotals } from '../../src/ledger/ledger.ts';
import { executeAdmitUpdate } from '../../src/use-cases/temporal/generation-workflows.ts';
import type { GenerationInput } from '../../workflows/contracts/generation.types.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { generationWorkflowHarness } from '../helpers/generation-workflow.ts';
import { bundleWorkflows, createDevServerEnv, uniqueTaskQueue } from '../helpers/temporal.ts';
import { testStorage } from '../helpers/app.ts';
import { webhookStarter } from '../../src/use-cases/temporal/worker-starter.ts';

const context = {} as {
  env: TestWorkflowEnvironment;
  database: TestDatabase;
  workflowBundle: WorkflowBundleWithSourceMap;
};
const { newTaskInput } = generationWorkflowHarness(context);

beforeAll(async () => {
  [context.env, context.database, context.workflowBundle] = await Promise.all([
    createDevServerEnv(),
    createTestDatabase(),
    bundleWorkflows(),
  ]);
});
afterAll(async () => {
  await context.env?.teardown();
  await context.database?.drop();
});

/** The real generation activities on the test database. */
function realGenerationActivities() {
  const config = loadConfig({}, []);
  return createGenerationActivities({
    prisma: context.database.prisma,
    storage: testStorage(),
    catalog: loadCatalog(),
    config,
    facilitator: configuredFacilitator(config),
    starter: webhookStarter({ prisma: context.database.prisma, config }),
  });
}

/** Admits `input` through update-with-start against a worker with the real activities, `admitTask` overridable. */
async function admit(input: GenerationInput, admitTask?: GenerationActivities['admitTask']) {
  const { prisma } = context.database;
  const config = loadConfig({}, []);
  const taskQueue = uniqueTaskQueue('admission');
  const activities = {
    ...realGenerationActivities(),
    ...createWebhookActivities({ prisma, config, starter: webhookStarter({ prisma, config }) }),
    ...(admitTask ? { admitTask } : {}),
  };
  const worker = await Worker.create({
    connection: context.env.nativeConnection,
    taskQueue,
    workflowBundle: context.workflowBundle,
    activities,
  });
  return worker.runUntil(async () => {
    const started = Date.now();
    const outcome = await executeAdmitUpdate({ client: context.env.client, taskQueue }, input, {
      accountKind: 'developer',
    });
    const elapsedMs = Date.now() - started;
    const handle = context.env.client.workflow.getHandle(input.taskId);
    await handle.result().catch(() => undefined);
    return { outcome, elapsedMs, status: (await handle.describe()).status.name };
  });
}

async function expectNothingLeft(input: GenerationInput) {
  const { prisma } = context.database;
  expect(await prisma.task.findUnique({ where: { id: input.taskId } })).toBeNull();
  expect(await prisma.balance.findUniqueOrThrow({ where: { accountId: input.accountId } })).toMatchObject({
    balance: 1_000_000n,
    reserved: 0n,
  });
}

describe('admission that cannot succeed', () => {
  it('a value the database refuses (a NUL in the prompt) fails at once: unavailable, nothing reserved, closed', async () => {
    const input = await newTaskInput({
      request: { type: 'text-to-image', model: 'fal/flux-schnell', prompt: 'a\u0000b' },
    });
    const { outcome, elapsedMs, status } = await admit(input);
    expect(outcome).toEqual({ outcome: 'unavailable' });
    expect(elapsedMs).toBeLessThan(5_000);
    expect(status).toBe('FAILED');
    await expectNothingLeft(input);
  });

  it('a failure that keeps recurring gives up after 4 attempts, within seconds', async () => {
    const input = await newTaskInput();
    let attempts = 0;
    const { outcome, elapsedMs, status } = await admit(input, async () => {
      attempts += 1;
      throw new Error('the database is having a bad day');
    });
    expect(outcome).toEqual({ outcome: 'unavailable' });
    expect(attempts).toBe(4);
    expect(elapsedMs).toBeLessThan(20_000);
    expect(status).toBe('FAILED');
    await expectNothingLeft(input);
  }, 60_000);

  // The chaos suite's scenario d: PostgreSQL killed after an attempt committed, away longer than the attempts last.
  it('an admission whose row committed but whose answer was lost: adopted, and a retried POST attaches to it', async () => {
    const input = await newTaskInput();
    const { prisma } = context.database;
    const config = loadConfig({}, []);
    const real = realGenerationActivities();
    const taskQueue = uniqueTaskQueue('answer-lost');
    // Each attempt commits (the first writes the row and the reservation), then its answer is lost.
    const admitTask: GenerationActivities['admitTask'] = async (admitInput) => {
      await real.admitTask(admitInput);
      throw new Error('the database went away before answering');
    };
    const activities = {
      ...real,
      ...createWebhookActivities({ prisma, config, starter: webhookStarter({ prisma, config }) }),
      admitTask,
    };
    const worker = await Worker.create({
      connection: context.env.nativeConnection,
      taskQueue,
      workflowBundle: context.workflowBundle,
      activities,
    });
    const temporal = { client: context.env.client, taskQueue };
    const caller = { accountKind: 'developer' } as const;
    const handle = context.env.client.workflow.getHandle(input.taskId);
    await worker.runUntil(async () => {
      expect(await executeAdmitUpdate(temporal, input, caller)).toEqual({ outcome: 'unavailable' });
      // The retried POST (the same key: the same task id and input) is answered with the task, which runs on.
      const retried = await executeAdmitUpdate(temporal, input, caller);
      expect(retried).toMatchObject({ outcome: 'admitted', task: { id: input.taskId } });
      expect((await handle.describe()).status.name).toBe('RUNNING');
      expect(await prisma.task.findUniqueOrThrow({ where: { id: input.taskId } })).toMatchObject({
        status: 'processing',
        error: null,
      });
      expect(await prisma.balance.findUniqueOrThrow({ where: { accountId: input.accountId } })).toMatchObject({
        reserved: BigInt(input.costMicros),
      });
      // No provider worker here: cancelled, it releases the reservation as any task would.
      await handle.cancel();
      await handle.result().catch(() => undefined);
    });
    expect(await prisma.balance.findUniqueOrThrow({ where: { accountId: input.accountId } })).toMatchObject({
      balance: 1_000_000n,
      reserved: 0n,
    });
  }, 90_000);
});

/** Resolves when `open()` is called. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

describe('an admission that commits after its workflow gave up (issue 16)', () => {
  // A cancel waits for the attempt under way (local activities wait for cancellation to complete); an attempt that
  // timed out does not stop, though: it is the one that could commit after the workflow answered "nothing charged".
  it('an attempt still under way when the workflow gave up commits nothing; a new run of the task admits', async () => {
    const input = await newTaskInput();
    const real = realGenerationActivities();
    const slowDatabase = gate();
    let late: Promise<unknown> | undefined;
    // The first attempt is held up (its transaction waits for a connection) and every attempt is answered as timed
    // out, so the attempts run out and the workflow gives up: unavailable, "nothing was charged".
    const { outcome, status } = await admit(input, async (admitInput) => {
      late ??= slowDatabase.opened.then(() => real.admitTask(admitInput)).catch((error: unknown) => error);
      throw new Error('the database did not answer in time');
    });
    expect(outcome).toEqual({ outcome: 'unavailable' });
    expect(status).toBe('FAILED');

    // Only now does the held-up attempt reach the database.
    slowDatabase.open();
    expect(await late).toMatchObject({ type: 'AdmissionAbandoned', nonRetryable: true });
    await expectNothingLeft(input);
    expect(await ledgerTotals(context.database.prisma, input.accountId)).toMatchObject({ reserved: 0n });

    // The tombstone is the given-up run's alone: the next run of the same task (a retried POST) is admitted.
    const retried = await new MockActivityEnvironment({
      workflowExecution: { workflowId: input.taskId, runId: 'the-next-run' },
    }).run(real.admitTask, input);
    expect(retried).toMatchObject({ outcome: 'admitted', task: { id: input.taskId, status: 'queued' } });
    expect(await context.database.prisma.balance.findUniqueOrThrow({ where: { accountId: input.accountId } })).toEqual(
      expect.objectContaining({ balance: 1_000_000n, reserved: BigInt(input.costMicros) }),
    );
  }, 60_000);

  it('a workflow whose workflow task is failing (being retried) cannot take the admit update now: unavailable, not an error', async () => {
    const input = await newTaskInput();
    const taskQueue = uniqueTaskQueue('failing-workflow-task');
    await context.env.client.workflow.start('generationWorkflow', {
      workflowId: input.taskId,
      taskQueue,
      args: [input],
    });
    // A worker that does not know the workflow type fails each of its workflow tasks, as one crashing mid-task does.
    const worker = await Worker.create({
      connection: context.env.nativeConnection,
      taskQueue,
      workflowsPath: fileURLToPath(new URL('../../workflows/echo.workflow.ts', import.meta.url)),
    });
    const outcome = await worker.runUntil(async () => {
      const handle = context.env.client.workflow.getHandle(input.taskId);
      await expect
        .poll(
          async () => (await handle.fetchHistory()).events?.some((event) => event.workflowTaskFailedEventAttributes),
          {
            timeout: 30_000,
          },
        )
        .toBe(true);
      return executeAdmitUpdate({ client: context.env.client, taskQueue }, input, { accountKind: 'developer' });
    });
    expect(outcome).toEqual({ outcome: 'unavailable' });
    await context.env.client.workflow.getHandle(input.taskId).terminate('test over');
    await expectNothingLeft(input);
  }, 90_000);
});
