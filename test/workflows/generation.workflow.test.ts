// The generation workflow on the time-skipping server, with the real money activities on a real database and
// stand-ins (typed as the real activity) for the provider call, to drive each failure path.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/activity';
import { temporal } from '@temporalio/proto';
import { CancelledFailure, type WorkflowHandle, WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGenerationActivities, type GenerationActivities } from '../../activities/generation.activities.ts';
import type { ProviderActivities } from '../../activities/provider.activities.ts';
import { createWebhookActivities, type WebhookActivities } from '../../activities/webhook.activities.ts';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import { loadConfig } from '../../src/config.ts';
import type { GenerationRequest } from '../../src/domain/generation-request.ts';
import { requestHash } from '../../src/generation/request.ts';
import { newId } from '../../src/services/ids.ts';
import { credit, ledgerTotals } from '../../src/services/ledger.ts';
import { providerSlugOf, providerTaskQueue } from '../../workflows/task-queues.ts';
import {
  admitUpdate,
  type GenerationInput,
  generationWorkflow,
  upstreamCallbackSignal,
} from '../../workflows/generation.workflow.ts';
import { createFundedAccount } from '../helpers/accounts.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { bundleWorkflows, createTimeSkippingEnv, uniqueTaskQueue } from '../helpers/temporal.ts';

let env: TestWorkflowEnvironment;
let database: TestDatabase;
let workflowBundle: WorkflowBundleWithSourceMap;
let realActivities: GenerationActivities & WebhookActivities;

beforeAll(async () => {
  [env, database, workflowBundle] = await Promise.all([
    createTimeSkippingEnv(),
    createTestDatabase(),
    bundleWorkflows(),
  ]);
  // The webhook activities too: the notify step runs here (these tasks have no webhook to send to).
  realActivities = {
    ...createGenerationActivities({ prisma: database.prisma, catalog: loadCatalog() }),
    ...createWebhookActivities({ prisma: database.prisma, config: loadConfig({}, []) }),
  };
});
afterAll(async () => {
  await env?.teardown();
  await database?.drop();
});

const request: GenerationRequest = { type: 'upscale', model: 'local/lanczos', image_url: 'https://inputs.test/a.png' };

async function newTaskInput(
  costMicros = 500_000n,
  timeoutSeconds = 120,
  taskRequest: GenerationRequest = request,
): Promise<GenerationInput> {
  const accountId = await createFundedAccount(database.prisma);
  await credit(database.prisma, {
    accountId,
    amount: 1_000_000n,
    kind: 'deposit',
    idempotencyKey: `deposit:${accountId}`,
  });
  return {
    taskId: newId('gen'),
    accountId,
    request: taskRequest,
    costMicros: costMicros.toString(),
    idempotencyKey: null,
    modelId: taskRequest.model,
    requestHash: requestHash(taskRequest),
    timeoutSeconds,
  };
}

/** Starts the workflow, admits it through its update (as the api does), and waits for the end. */
/** `provider` stands in for the provider call (`generateOutputs`), or for all the provider activities. */
async function run(
  input: GenerationInput,
  provider: ProviderActivities['generateOutputs'] | Partial<ProviderActivities>,
  whileRunning?: (handle: WorkflowHandle<typeof generationWorkflow>) => Promise<void>,
) {
  const taskQueue = uniqueTaskQueue('generation');
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle,
    activities: realActivities,
  });
  // The provider call runs on the model's provider queue (local models: `<queue>-local`).
  const providerWorker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: providerTaskQueue(taskQueue, providerSlugOf(input.modelId)),
    activities: typeof provider === 'function' ? { generateOutputs: provider } : provider,
  });
  return providerWorker.runUntil(() =>
    worker.runUntil(async () => {
      const handle = await env.client.workflow.start(generationWorkflow, {
        taskQueue,
        workflowId: input.taskId,
        args: [input],
      });
      const admission = await handle.executeUpdate(admitUpdate, { args: [{ requestHash: input.requestHash }] });
      await whileRunning?.(handle);
      const outcome = await handle.result().then(
        (result) => ({ result, failure: undefined }),
        (failure: unknown) => ({ result: undefined, failure }),
      );
      return { admission, ...outcome, history: await handle.fetchHistory() };
    }),
  );
}

async function moneyOf(accountId: string) {
  const row = await database.prisma.balance.findUniqueOrThrow({ where: { accountId } });
  const totals = await ledgerTotals(database.prisma, accountId);
  expect({ balance: totals.balance, reserved: totals.reserved }).toEqual({
    balance: row.balance,
    reserved: row.reserved,
  });
  return { balance: row.balance, reserved: row.reserved, spent: totals.spent };
}

describe('generationWorkflow', () => {
  it('completes: charges the reserved cost once and stores the outputs', async () => {
    const input = await newTaskInput();
    const { result, history } = await run(input, async () => ({ outputs: ['http://files.test/out.png'] }));
    expect(result).toMatchObject({
      id: input.taskId,
      status: 'completed',
      output: 'http://files.test/out.png',
      cost: 0.5,
    });
    expect(await moneyOf(input.accountId)).toEqual({ balance: 500_000n, reserved: 0n, spent: 500_000n });
    // `RECORD_HISTORIES=1 npx vitest run test/workflows/generation.workflow.test.ts` refreshes the replay test's
    // history after an intended change of the workflow; commit the file with the change.
    if (process.env.RECORD_HISTORIES === '1') {
      await writeFile(
        join(import.meta.dirname, 'histories', 'generation-completed.binpb'),
        temporal.api.history.v1.History.encode(history).finish(),
      );
    }
  });

  it('a provider refusal fails the task with its message and releases everything, without retrying', async () => {
    const input = await newTaskInput();
    let calls = 0;
    const { result } = await run(input, async () => {
      calls += 1;
      throw ApplicationFailure.nonRetryable('the input is not an image this server can read', 'ProviderRefusal');
    });
    expect(calls).toBe(1);
    expect(result).toMatchObject({
      status: 'failed',
      error: 'the input is not an image this server can read',
      cost: 0,
    });
    expect(await moneyOf(input.accountId)).toEqual({ balance: 1_000_000n, reserved: 0n, spent: 0n });
  });

  it('retries transient provider errors with backoff, then completes, charged once', async () => {
    const input = await newTaskInput();
    let calls = 0;
    const { result, history } = await run(input, async () => {
      calls += 1;
      if (calls < 3) throw new Error(`upstream 503 #${calls}`);
      return { outputs: ['http://files.test/out.png'] };
    });
    expect(calls).toBe(3);
    expect(result?.status).toBe('completed');
    expect(await moneyOf(input.accountId)).toEqual({ balance: 500_000n, reserved: 0n, spent: 500_000n });
    const failedAttempts = history.events?.filter((event) => event.activityTaskFailedEventAttributes) ?? [];
    expect(failedAttempts).toHaveLength(0); // retries happen inside one scheduled activity; only the last attempt is recorded
  });

  it('an unknown provider error ends in a generic, caller-safe message once retries run out', async () => {
    const input = await newTaskInput();
    const { result } = await run(input, async () => {
      throw new Error('connect ECONNREFUSED 10.0.0.7:443 (secret-host)');
    });
    expect(result).toMatchObject({
      status: 'failed',
      error: 'The generation failed at the provider. You have not been charged.',
    });
    expect(result?.error).not.toContain('secret-host');
    expect(await moneyOf(input.accountId)).toEqual({ balance: 1_000_000n, reserved: 0n, spent: 0n });
  });

  it('a model that does not finish within its timeout fails the task and releases everything', async () => {
    const input = await newTaskInput(500_000n, 2);
    const { result } = await run(
      input,
      () => new Promise((resolve) => setTimeout(() => resolve({ outputs: [] }), 4_000)),
    );
    expect(result).toMatchObject({ status: 'failed', error: 'The model did not finish within 2 seconds.' });
    expect(await moneyOf(input.accountId)).toEqual({ balance: 1_000_000n, reserved: 0n, spent: 0n });
  });

  it('text-to-text settles the tokens actually used, releasing the rest of the reservation', async () => {
    const textRequest: GenerationRequest = {
      type: 'text-to-text',
      model: 'openai/kimi-k2',
      prompt: 'Say hi',
      max_tokens: 1000,
    };
    const input = await newTaskInput(2_502n, 120, textRequest); // 2 input tokens and 1000 output tokens, as quoted
    const { result } = await run(input, async () => ({
      outputs: ['http://files.test/answer.txt'],
      usage: { input_tokens: 9, output_tokens: 12 },
    }));
    // 9 × 0.60 + 12 × 2.50 per million = 5.4 + 30 micro-USD, each rounded up: 6 + 30.
    expect(result).toMatchObject({ status: 'completed', output: 'http://files.test/answer.txt', cost: 0.000036 });
    expect(await moneyOf(input.accountId)).toEqual({ balance: 1_000_000n - 36n, reserved: 0n, spent: 36n });
  });

  it('a cancelled task still runs its compensation: failed, everything released', async () => {
    const input = await newTaskInput();
    let started!: () => void;
    const providerStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const { failure } = await run(
      input,
      async () => {
        started();
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        return { outputs: [] };
      },
      async (handle) => {
        await providerStarted;
        await handle.cancel();
      },
    );
    // The workflow ends cancelled; the task it ran ends failed and refunded.
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect(await database.prisma.task.findUniqueOrThrow({ where: { id: input.taskId } })).toMatchObject({
      status: 'failed',
      error: expect.any(String),
    });
    expect(await moneyOf(input.accountId)).toEqual({ balance: 1_000_000n, reserved: 0n, spent: 0n });
  });

  it('refuses admission beyond the available balance: no task, nothing reserved, the workflow ends', async () => {
    const input = await newTaskInput(1_500_000n);
    const { admission, failure } = await run(input, async () => {
      throw new Error('must not run');
    });
    expect(admission).toEqual({ outcome: 'insufficient_funds', availableMicros: '1000000' });
    // It ends failed, so that the same task id (an Idempotency-Key) may be admitted later.
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause).toMatchObject({ type: 'AdmissionRefused' });
    expect(await database.prisma.task.count({ where: { id: input.taskId } })).toBe(0);
    expect(await moneyOf(input.accountId)).toEqual({ balance: 1_000_000n, reserved: 0n, spent: 0n });
  });

  describe('an upstream job (fal, Replicate)', () => {
    const videoRequest: GenerationRequest = {
      type: 'text-to-video',
      model: 'fal/veo-3-fast',
      prompt: 'a slow pan over a harbour',
      duration: 8,
    };
    const submitted = (pollIntervalMs: number, pollMaxIntervalMs: number) => async () => ({
      job: { jobId: 'job-1', pollIntervalMs, pollMaxIntervalMs },
    });
    const collected = async () => ({ outputs: ['http://files.test/clip.mp4'] });
    /** Resolves once the workflow has the job and waits on its poll timer. */
    const waitingOnTimer = async (handle: WorkflowHandle<typeof generationWorkflow>) => {
      const deadline = Date.now() + 30_000;
      while (!((await handle.fetchHistory()).events ?? []).some((event) => event.timerStartedEventAttributes)) {
        if (Date.now() > deadline) throw new Error('the workflow never started waiting on its poll timer');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const timerDurations = (history: temporal.api.history.v1.IHistory) =>
      (history.events ?? []).flatMap((event) =>
        event.timerStartedEventAttributes
          ? [
              Number(event.timerStartedEventAttributes.startToFireTimeout?.seconds ?? 0) * 1000 +
                Math.round((event.timerStartedEventAttributes.startToFireTimeout?.nanos ?? 0) / 1e6),
            ]
          : [],
      );

    it('polls on durable timers that grow by half up to the maximum, then collects and settles once', async () => {
      const input = await newTaskInput(500_000n, 600, videoRequest);
      let checks = 0;
      const { result, history } = await run(input, {
        generateOutputs: submitted(100, 400),
        checkUpstreamJob: async (job) => {
          expect(job).toEqual({ taskId: input.taskId, modelId: 'fal/veo-3-fast', jobId: 'job-1' });
          checks += 1;
          return checks < 7 ? { done: false, queuePosition: 7 - checks } : { done: true };
        },
        collectUpstreamJob: collected,
      });
      expect(checks).toBe(7);
      expect(timerDurations(history)).toEqual([100, 150, 225, 338, 400, 400, 400]);
      if (process.env.RECORD_HISTORIES === '1') {
        await writeFile(
          join(import.meta.dirname, 'histories', 'generation-upstream-job.binpb'),
          temporal.api.history.v1.History.encode(history).finish(),
        );
      }
      expect(result).toMatchObject({ status: 'completed', output: 'http://files.test/clip.mp4', cost: 0.5 });
      expect(await moneyOf(input.accountId)).toEqual({ balance: 500_000n, reserved: 0n, spent: 500_000n });
    });

    it('a callback for the job wakes the wait at once; one for another job does not', async () => {
      const input = await newTaskInput(500_000n, 7_200, videoRequest);
      let checks = 0;
      const { result, history } = await run(
        input,
        {
          generateOutputs: submitted(3_600_000, 3_600_000),
          checkUpstreamJob: async () => {
            checks += 1;
            return { done: true };
          },
          collectUpstreamJob: collected,
        },
        async (handle) => {
          // Before result() is awaited the test server does not skip time: the hour-long poll timer really waits.
          await waitingOnTimer(handle);
          await handle.signal(upstreamCallbackSignal, { jobId: 'job-of-another-task' });
          await new Promise((resolve) => setTimeout(resolve, 1_000));
          expect(checks).toBe(0);
          await handle.signal(upstreamCallbackSignal, { jobId: 'job-1' });
        },
      );
      expect(checks).toBe(1);
      expect(result?.status).toBe('completed');
      const events = history.events ?? [];
      expect(events.filter((event) => event.timerCanceledEventAttributes)).toHaveLength(1);
      expect(events.filter((event) => event.timerFiredEventAttributes)).toHaveLength(0);
    });

    it('a job that outlives the model timeout fails the task, is cancelled upstream, and everything is released', async () => {
      const input = await newTaskInput(500_000n, 3, videoRequest);
      const cancelled: string[] = [];
      const { result } = await run(input, {
        generateOutputs: submitted(200, 500),
        checkUpstreamJob: async () => ({ done: false }),
        cancelUpstreamJob: async (job) => {
          cancelled.push(job.jobId);
        },
      });
      expect(result).toMatchObject({ status: 'failed', error: 'The model did not finish within 3 seconds.', cost: 0 });
      expect(cancelled).toEqual(['job-1']);
      expect(await moneyOf(input.accountId)).toEqual({ balance: 1_000_000n, reserved: 0n, spent: 0n });
    });

    it('a job the upstream failed ends the task with its reason, refunded, without collecting', async () => {
      const input = await newTaskInput(500_000n, 600, videoRequest);
      let collectedCalls = 0;
      const { result } = await run(input, {
        generateOutputs: submitted(100, 100),
        checkUpstreamJob: async () => {
          throw ApplicationFailure.nonRetryable('The model failed: CUDA out of memory', 'ProviderRefusal');
        },
        collectUpstreamJob: async () => {
          collectedCalls += 1;
          return collected();
        },
        cancelUpstreamJob: async () => undefined,
      });
      expect(collectedCalls).toBe(0);
      expect(result).toMatchObject({ status: 'failed', error: 'The model failed: CUDA out of memory', cost: 0 });
      expect(await moneyOf(input.accountId)).toEqual({ balance: 1_000_000n, reserved: 0n, spent: 0n });
    });

    it('a task cancelled while its job is being submitted still cancels the job the submission made', async () => {
      const input = await newTaskInput(500_000n, 7_200, videoRequest);
      const cancelled: string[] = [];
      let submitting!: () => void;
      const submissionStarted = new Promise<void>((resolve) => {
        submitting = resolve;
      });
      const { failure } = await run(
        input,
        {
          // Slow to answer and deaf to the cancel (no heartbeats): the upstream accepts the job all the same.
          generateOutputs: async () => {
            submitting();
            await new Promise((resolve) => setTimeout(resolve, 1_500));
            return { job: { jobId: 'job-late', pollIntervalMs: 1_000, pollMaxIntervalMs: 1_000 } };
          },
          checkUpstreamJob: async () => {
            throw new Error('must not be checked');
          },
          cancelUpstreamJob: async (job) => {
            cancelled.push(job.jobId);
          },
        },
        async (handle) => {
          await submissionStarted;
          await handle.cancel();
        },
      );
      expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
      expect(cancelled).toEqual(['job-late']);
      expect(await moneyOf(input.accountId)).toEqual({ balance: 1_000_000n, reserved: 0n, spent: 0n });
    });

    it('a task cancelled while its job waits cancels the job upstream and is refunded', async () => {
      const input = await newTaskInput(500_000n, 7_200, videoRequest);
      const cancelled: string[] = [];
      const { failure } = await run(
        input,
        {
          generateOutputs: submitted(3_600_000, 3_600_000),
          checkUpstreamJob: async () => ({ done: false }),
          cancelUpstreamJob: async (job) => {
            cancelled.push(job.jobId);
          },
        },
        async (handle) => {
          await waitingOnTimer(handle);
          await handle.cancel();
        },
      );
      expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
      expect(cancelled).toEqual(['job-1']);
      expect(await database.prisma.task.findUniqueOrThrow({ where: { id: input.taskId } })).toMatchObject({
        status: 'failed',
      });
      expect(await moneyOf(input.accountId)).toEqual({ balance: 1_000_000n, reserved: 0n, spent: 0n });
    });
  });
});
