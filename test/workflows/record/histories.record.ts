// `npm run record-histories`: runs each workflow once on the path its committed history covers and writes the
// history for test/workflows/replay.test.ts. Record again only after an intended, compatible workflow change.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { Workflow } from '@temporalio/workflow';
import type { GenerationActivities } from '../../../activities/generation.activities.ts';
import type { OutputActivities } from '../../../activities/output.activities.ts';
import type { ReplayActivities } from '../../../activities/replay.activities.ts';
import type { TaskReconcilerActivities } from '../../../activities/task-reconciler.activities.ts';
import type { UploadActivities } from '../../../activities/upload.activities.ts';
import { outputExpiryWorkflow } from '../../../workflows/expiry/output-expiry.workflow.ts';
import { replayBatchWorkflow } from '../../../workflows/replay-batch.workflow.ts';
import { taskReconcilerWorkflow } from '../../../workflows/task-reconciler.workflow.ts';
import { uploadExpiryWorkflow } from '../../../workflows/expiry/upload-expiry.workflow.ts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import {
  generationWorkflowHarness,
  schnellRequest,
  upscaleRequest,
  submittedJob,
  textToVideoRequest,
} from '../../helpers/generation-workflow.ts';
import { bundleWorkflows, createTimeSkippingEnv, uniqueTaskQueue } from '../../helpers/temporal.ts';
import { webhookDeliveryHarness } from '../../helpers/webhook-delivery-workflow.ts';
import { createFundedAccount } from '../../helpers/accounts.ts';
import { admitTask } from '../../../src/generations/tasks.ts';
import { advancingChain, depositWorkflowHarness } from '../../helpers/deposit-workflow.ts';

// Where to write: the committed directory unless HISTORIES_DIR names another (to try the recorder).
const historiesDir = resolve(process.env.HISTORIES_DIR ?? join(import.meta.dirname, '..', 'histories'));

const context = {} as {
  env: TestWorkflowEnvironment;
  database: TestDatabase;
  workflowBundle: WorkflowBundleWithSourceMap;
};
const generation = generationWorkflowHarness(context);
const webhooks = webhookDeliveryHarness(context);
const deposits = depositWorkflowHarness(context);

beforeAll(async () => {
  [context.env, context.database, context.workflowBundle] = await Promise.all([
    createTimeSkippingEnv(),
    createTestDatabase(),
    bundleWorkflows(),
  ]);
  await mkdir(historiesDir, { recursive: true });
});
afterAll(async () => {
  await webhooks.closeReceivers();
  await context.env?.teardown();
  await context.database?.drop();
});

// Committed histories stand for runs of earlier builds and are never replaced: only a missing one is written there.
// Another directory gets every history.
const save = async (file: string, history: temporal.api.history.v1.IHistory) => {
  const path = join(historiesDir, file);
  if (!process.env.HISTORIES_DIR && existsSync(path)) {
    console.log(`kept ${path} (committed histories are not replaced; pass --out <dir> to record it elsewhere)`);
    return;
  }
  await writeFile(path, temporal.api.history.v1.History.encode(history).finish());
};

/** One run of `workflow` on a worker of its own with stand-in `activities`: its result and its history. */
async function runWithActivities(
  workflow: Workflow,
  args: unknown[],
  activities: object,
): Promise<{ result: unknown; history: temporal.api.history.v1.IHistory }> {
  const taskQueue = uniqueTaskQueue(workflow.name);
  const worker = await Worker.create({
    connection: context.env.nativeConnection,
    taskQueue,
    workflowBundle: context.workflowBundle,
    activities,
  });
  return worker.runUntil(async () => {
    const handle = await context.env.client.workflow.start(workflow.name, { workflowId: taskQueue, taskQueue, args });
    return { result: await handle.result(), history: await handle.fetchHistory() };
  });
}

it('generation-completed.binpb: a local model completes', async () => {
  const input = await generation.newTaskInput();
  const { result, history } = await generation.run({
    input,
    provider: async () => ({ outputs: ['http://files.test/out.png'] }),
  });
  expect(result?.status).toBe('completed');
  await save('generation-completed.binpb', history);
});

it('generation-failed.binpb: the provider refuses; the task fails, its status kept current', async () => {
  const input = await generation.newTaskInput();
  const { result, history } = await generation.run({
    input,
    provider: async () => {
      throw ApplicationFailure.nonRetryable('refused', 'ProviderRefusal');
    },
  });
  expect(result?.status).toBe('failed');
  await save('generation-failed.binpb', history);
});

/** A task with a webhook completes; its first attempt delivers. `shape` 0: started as before the input named one. */
async function completedWithWebhook(file: string, shape?: number) {
  const hook = await webhooks.receiver();
  const input = await generation.newTaskInput({ request: { ...upscaleRequest, webhook_url: hook.url }, shape });
  const { result, history } = await generation.run({
    input,
    provider: async () => ({ outputs: ['http://files.test/out.png'] }),
  });
  expect(result?.status).toBe('completed');
  expect(hook.received).toHaveLength(1);
  await save(file, history);
}

/** A task with a webhook fails; its first attempt fails and is handed over to a delivery workflow. */
async function failedWithWebhookHandedOver(file: string, shape?: number) {
  const hook = await webhooks.receiver({ answers: [{ status: 503 }] });
  const input = await generation.newTaskInput({ request: { ...upscaleRequest, webhook_url: hook.url }, shape });
  const { result, history } = await generation.run({
    input,
    provider: async () => {
      throw ApplicationFailure.nonRetryable('refused', 'ProviderRefusal');
    },
    afterwards: () =>
      expect
        .poll(() => hook.received.length, { timeout: 20_000 })
        .toBe(2)
        .then(() => undefined),
  });
  expect(result?.status).toBe('failed');
  await save(file, history);
}

// After patch lighter-task: the final event's first attempt is the task's own step (local activities); a failed one
// is handed to a delivery workflow. Recorded as runs started before the input named a shape asked the patch.
it('generation-completed-webhook.binpb: a task with a webhook completes; its first attempt delivers', () =>
  completedWithWebhook('generation-completed-webhook.binpb', 0));

it('generation-failed-webhook-handed-over.binpb: a task with a webhook fails; its first attempt fails, handed over', () =>
  failedWithWebhookHandedOver('generation-failed-webhook-handed-over.binpb', 0));

// Since the input's shape: the same runs, without the patch's marker and TemporalChangeVersion upsert.
it('generation-completed-webhook-shaped.binpb: as above, started with the input shape (no patch marker)', () =>
  completedWithWebhook('generation-completed-webhook-shaped.binpb'));

it('generation-failed-webhook-shaped.binpb: as above, started with the input shape (no patch marker)', () =>
  failedWithWebhookHandedOver('generation-failed-webhook-shaped.binpb'));

it('generation-refused.binpb: admission refused (no funds), its status `refused`', async () => {
  const input = await generation.newTaskInput({ costMicros: 2_000_000n });
  const { admission, failure, result, history } = await generation.run({
    input,
    provider: async () => ({ outputs: [] }),
  });
  expect(admission?.outcome).toBe('insufficient_funds');
  expect(failure).toBeUndefined();
  expect(result).toBeNull();
  await save('generation-refused.binpb', history);
});

it('generation-upstream-job.binpb: an upstream job polled on growing timers, then collected', async () => {
  const input = await generation.newTaskInput({ timeoutSeconds: 600, request: textToVideoRequest });
  let checks = 0;
  const { result, history } = await generation.run({
    input,
    provider: {
      generateOutputs: submittedJob(100, 400),
      checkUpstreamJob: async () => {
        checks += 1;
        return checks < 7 ? { done: false, queuePosition: 7 - checks } : { done: true };
      },
      collectUpstreamJob: async () => ({ outputs: ['http://files.test/clip.mp4'] }),
    },
  });
  expect(result?.status).toBe('completed');
  await save('generation-upstream-job.binpb', history);
});

it('generation-provider-fallback.binpb: fal cannot run it; the Replicate route submits, is polled, collected', async () => {
  const input = { ...(await generation.newTaskInput({ request: schnellRequest })), fallbackProviders: ['replicate'] };
  const { result, history } = await generation.run({
    input,
    provider: async () => {
      throw ApplicationFailure.nonRetryable('fal/flux-schnell cannot run on this server', 'RouteUnavailable');
    },
    fallback: {
      generateOutputs: submittedJob(100, 400),
      checkUpstreamJob: async (job) => ({ done: job.route === 1 }),
      collectUpstreamJob: async () => ({ outputs: ['http://files.test/out-0.png'] }),
    },
  });
  expect(result).toMatchObject({ status: 'completed', served_by: 'replicate' });
  await save('generation-provider-fallback.binpb', history);
});

it('generation-provider-queue.binpb: no fal slot within the queue bound; Replicate, queued a while, submits', async () => {
  const input = {
    ...(await generation.newTaskInput({ request: schnellRequest, timeoutSeconds: 60, queueTimeoutSeconds: 2 })),
    fallbackProviders: ['replicate'],
  };
  const { result, history } = await generation.run({
    input,
    providerSlots: 0,
    provider: async () => ({ outputs: [] }),
    fallback: {
      generateOutputs: async () => ({
        job: { jobId: 'job-1', pollIntervalMs: 100, pollMaxIntervalMs: 400, queuedMs: 500 },
      }),
      checkUpstreamJob: async () => ({ done: true }),
      collectUpstreamJob: async () => ({ outputs: ['http://files.test/out-0.png'] }),
    },
  });
  expect(result).toMatchObject({ status: 'completed', served_by: 'replicate' });
  await save('generation-provider-queue.binpb', history);
});

/** An admission whose update was lost (its row committed), adopted, then completed. */
async function adoptedAfterLostUpdate(file: string, shape?: number) {
  const input = await generation.newTaskInput({ shape });
  await admitTask(context.database.prisma, { ...input, costMicros: BigInt(input.costMicros) });
  const { result, history } = await generation.run({
    input,
    admit: false,
    provider: async () => ({ outputs: ['http://files.test/out.png'] }),
  });
  expect(result?.status).toBe('completed');
  await save(file, history);
}

it('generation-adopted.binpb: an admission whose update was lost, adopted after its timeout, then completed', () =>
  adoptedAfterLostUpdate('generation-adopted.binpb', 0));

// Since earlyAdoptionShape: the row is looked for after 30 s, not after the 5-minute timeout.
it('generation-adopted-early.binpb: as above, adopted at the 30 s look for a lost update', () =>
  adoptedAfterLostUpdate('generation-adopted-early.binpb'));

/** An admit step whose every attempt commits (the first writes the row) and then loses its answer: the database away. */
const answerLost =
  (prisma: TestDatabase['prisma']): GenerationActivities['admitTask'] =>
  async (input) => {
    await admitTask(prisma, { ...input, costMicros: BigInt(input.costMicros) });
    throw new Error('the database went away before answering');
  };

// Before the adoption after attempts ran out (patch admission-adopted-after-attempts) such a task failed: recorded
// with that build (commit 9db5cd0), kept to prove the patch replays it; the current build adopts the row instead.
it.skip('generation-answer-lost.binpb: the row committed, the attempts ran out: failed and released (before the patch)', async () => {
  const input = await generation.newTaskInput();
  const { admission, result, history } = await generation.run({
    input,
    admitTask: answerLost(context.database.prisma),
    provider: async () => ({ outputs: ['http://files.test/out.png'] }),
  });
  expect(admission?.outcome).toBe('update_failed');
  expect(result?.status).toBe('failed');
  await save('generation-answer-lost.binpb', history);
});

it('generation-answer-lost-adopted.binpb: the row committed, the attempts ran out: adopted, then completed', async () => {
  const input = await generation.newTaskInput({ shape: 0 });
  const { admission, result, history } = await generation.run({
    input,
    admitTask: answerLost(context.database.prisma),
    provider: async () => ({ outputs: ['http://files.test/out.png'] }),
  });
  expect(admission?.outcome).toBe('update_failed');
  expect(result?.status).toBe('completed');
  await save('generation-answer-lost-adopted.binpb', history);
});

it('generation-cancelled.binpb: cancelled while its upstream job waits: the job cancelled, the task failed', async () => {
  const input = await generation.newTaskInput({ timeoutSeconds: 7_200, request: textToVideoRequest });
  let submitted!: () => void;
  const jobSubmitted = new Promise<void>((resolve) => {
    submitted = resolve;
  });
  const cancelled: string[] = [];
  const { failure, history } = await generation.run({
    input,
    provider: {
      // Polled after an hour: the job waits on that timer when the cancel comes.
      generateOutputs: async () => {
        submitted();
        return { job: { jobId: 'job-1', pollIntervalMs: 3_600_000, pollMaxIntervalMs: 3_600_000 } };
      },
      cancelUpstreamJob: async (job) => {
        cancelled.push(job.jobId);
      },
    },
    whileRunning: async (handle) => {
      await jobSubmitted;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await handle.cancel();
    },
  });
  expect(failure).toBeDefined();
  expect(cancelled).toEqual(['job-1']);
  await save('generation-cancelled.binpb', history);
});

it('webhook-delivery-retried.binpb: a receiver down, then failing, then up', async () => {
  const { result } = await webhooks.deliverThroughOutage();
  expect(result).toMatchObject({ outcome: 'delivered', attempts: 3 });
  await save('webhook-delivery-retried.binpb', await result.history());
});

it('deposit-credited.binpb: a deposit waits for its confirmations, then is credited', async () => {
  const accountId = await createFundedAccount(context.database.prisma);
  const { result, history } = await deposits.run({
    txHash: `0x${'d1'.repeat(32)}`,
    chain: advancingChain(accountId, 4),
  });
  expect(result?.outcome).toBe('credited');
  await save('deposit-credited.binpb', history ?? {});
});

it('deposit-not-found.binpb: a hash never mined is refused as not found, and the run completes', async () => {
  const { result, history } = await deposits.run({
    txHash: `0x${'d2'.repeat(32)}`,
    receiptWaitSeconds: 10,
    chain: {
      inspectDeposit: async () => ({ kind: 'missing' as const, pending: false }),
      depositConfirmations: async () => {
        throw new Error('never asked: nothing was mined');
      },
    },
  });
  expect(result).toEqual({ outcome: 'rejected', reason: 'not_found' });
  await save('deposit-not-found.binpb', history ?? {});
});

it('task-reconciler.binpb: one pass, queued tasks then tasks whose workflow closed', async () => {
  const activities: TaskReconcilerActivities = {
    reconcileQueuedTasks: async () => ({
      checked: 1,
      repairs: [{ taskId: 'gen_a', workflow: 'RUNNING', action: 'admitted' }],
    }),
    releaseClosedTasks: async () => ({
      checked: 1,
      repairs: [{ taskId: 'gen_b', workflow: 'TERMINATED', action: 'failed', releasedMicros: '300000' }],
      abandonedAdmissionsPruned: 0,
    }),
  };
  const { result, history } = await runWithActivities(
    taskReconcilerWorkflow,
    [{ olderThanSeconds: 600, limit: 50 }],
    activities,
  );
  expect(result).toMatchObject({ checked: 2 });
  await save('task-reconciler.binpb', history);
});

it('upload-expiry.binpb: two full pages of expired uploads, then a short one', async () => {
  const expired = ['upl_a', 'upl_b', 'upl_c', 'upl_d', 'upl_e'];
  const activities: UploadActivities = {
    deleteExpiredUploads: async ({ limit }) => ({ deleted: expired.splice(0, limit) }),
  };
  const { result, history } = await runWithActivities(uploadExpiryWorkflow, [{ limit: 2, maxPages: 10 }], activities);
  expect(result).toEqual({ deleted: ['upl_a', 'upl_b', 'upl_c', 'upl_d', 'upl_e'] });
  await save('upload-expiry.binpb', history);
});

it('output-expiry.binpb: two full pages of tasks past their retention, then a short one', async () => {
  const expired = ['gen_a', 'gen_b', 'gen_c', 'gen_d', 'gen_e'];
  const activities: OutputActivities = {
    deleteExpiredOutputs: async ({ limit }) => ({ deleted: expired.splice(0, limit) }),
  };
  const { result, history } = await runWithActivities(outputExpiryWorkflow, [{ limit: 2, maxPages: 10 }], activities);
  expect(result).toEqual({ deleted: ['gen_a', 'gen_b', 'gen_c', 'gen_d', 'gen_e'] });
  await save('output-expiry.binpb', history);
});

it('replay-batch.binpb: a batch replays two tasks at its rate, skips one, and waits for both to end', async () => {
  const taskQueue = uniqueTaskQueue('replay-batch');
  let polls = 0;
  const activities: ReplayActivities = {
    selectReplayTasks: async () => [
      { taskId: 'gen_a', accountId: 'dev_a', model: 'local/lanczos', skip: null },
      {
        taskId: 'gen_b',
        accountId: 'wal_b',
        model: 'local/lanczos',
        skip: { reason: 'x402: the payer did not sign for a second run' },
      },
      { taskId: 'gen_c', accountId: 'dev_a', model: 'local/lanczos', skip: null },
    ],
    replayTask: async ({ taskId }) => ({ outcome: 'replayed', replayId: `${taskId}_replay`, costMicros: '500' }),
    replayStatuses: async (ids) => {
      polls += 1;
      return Object.fromEntries(ids.map((id) => [id, polls < 2 ? 'pending' : 'completed']));
    },
  };
  const worker = await Worker.create({
    connection: context.env.nativeConnection,
    taskQueue,
    workflowBundle: context.workflowBundle,
    activities,
  });
  const handle = await worker.runUntil(async () => {
    const started = await context.env.client.workflow.start(replayBatchWorkflow, {
      workflowId: `replay-batch-${taskQueue}`,
      taskQueue,
      args: [
        {
          batchId: `replay-batch-${taskQueue}`,
          selection: { status: 'failed', until: '2026-11-23T00:00:00.000Z', limit: 100 },
          tasksPerSecond: 2,
          waitSeconds: 3600,
        },
      ],
    });
    expect(await started.result()).toMatchObject({ selected: 3, replayed: 2, skipped: 1, completed: 2, pending: 0 });
    return started;
  });
  await save('replay-batch.binpb', await handle.fetchHistory());
});
