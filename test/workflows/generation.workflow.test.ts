// The generation workflow on the time-skipping server, with the real money activities on a real database and
// stand-ins (typed as the real activity) for the provider call, to drive each failure path.
import { ApplicationFailure } from '@temporalio/activity';
import type { temporal } from '@temporalio/proto';
import { CancelledFailure, type WorkflowHandle, WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GenerationRequest } from '../../src/domain/generation-request.ts';
import { ledgerTotals } from '../../src/ledger/ledger.ts';
import { admitTask } from '../../src/generations/tasks.ts';
import { upstreamCallbackSignal } from '../../workflows/contracts/generation.types.ts';
import type { generationWorkflow } from '../../workflows/generation/generation.workflow.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import {
  generationWorkflowHarness,
  schnellRequest,
  submittedJob as submitted,
  textToVideoRequest as videoRequest,
} from '../helpers/generation-workflow.ts';
import { bundleWorkflows, createTimeSkippingEnv } from '../helpers/temporal.ts';

const context = {} as {
  env: TestWorkflowEnvironment;
  database: TestDatabase;
  workflowBundle: WorkflowBundleWithSourceMap;
};
const { newTaskInput, run } = generationWorkflowHarness(context);
let database: TestDatabase;

beforeAll(async () => {
  [context.env, context.database, context.workflowBundle] = await Promise.all([
    createTimeSkippingEnv(),
    createTestDatabase(),
    bundleWorkflows(),
  ]);
  database = context.database;
});
afterAll(async () => {
  await context.env?.teardown();
  await context.database?.drop();
});

async function ledgerKinds(taskId: string) {
  const entries = await database.prisma.ledgerEntry.findMany({ where: { taskId }, select: { kind: true } });
  return entries.map((entry) => entry.kind).sort();
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
    const { result } = await run({
      input,
      provider: async () => ({ outputs: ['http://files.test/out.png'] }),
    });
    expect(result).toMatchObject({
      id: input.taskId,
      status: 'completed',
      output: 'http://files.test/out.png',
      cost: 0.5,
    });
    expect(await moneyOf(input.accountId)).toEqual({ balance: 500_000n, reserved: 0n, spent: 500_000n });
  });

  it("a run started with the api's shape takes the lighter branch without a patch; one started without asks it", async () => {
    const completes = async () => ({ outputs: ['http://files.test/out.png'] });
    const shaped = await run({ input: await newTaskInput(), provider: completes });
    const unshaped = await run({ input: await newTaskInput({ shape: 0 }), provider: completes });
    // A patch costs a marker and a TemporalChangeVersion upsert (a visibility write); GenStatus is upserted once, at
    // the end, on both (the lighter branch starts `processing`).
    const costOf = ({ history }: { history: temporal.api.history.v1.IHistory }) => ({
      patchMarkers: history.events!.filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_patch')
        .length,
      upserts: history.events!.filter((event) => event.upsertWorkflowSearchAttributesEventAttributes).length,
    });
    expect([shaped.result?.status, unshaped.result?.status]).toEqual(['completed', 'completed']);
    expect(costOf(shaped)).toEqual({ patchMarkers: 0, upserts: 1 });
    expect(costOf(unshaped)).toEqual({ patchMarkers: 1, upserts: 2 });
  });

  it('a provider refusal fails the task with its message and releases everything, without retrying', async () => {
    const input = await newTaskInput();
    let calls = 0;
    const { result } = await run({
      input,
      provider: async () => {
        calls += 1;
        throw ApplicationFailure.nonRetryable('the input is not an image this server can read', 'ProviderRefusal');
      },
    });
    expect(calls).toBe(1);
    expect(result).toMatchObject({
      status: 'failed',
      error: 'the input is not an image this server can read',
      cost: 0,
    });
    expect(await moneyOf(input.accountId)).toEqual({ balance: 1_000_000n, reserved: 0n, spent: 0n });
  });

  it("a refusal of the gateway's own provider account fails the task with a generic message, refunded", async () => {
    const input = await newTaskInput();
    const { result } = await run({
      input,
      provider: async () => {
        throw ApplicationFailure.nonRetryable(
          "The provider refused the gateway's credentials (HTTP 401): invalid key fal_…",
          'ProviderUnavailable',
        );
      },
    });
    expect(result).toMatchObject({
      status: 'failed',
      error: 'The model is not available right now: its provider refused this gateway. You have not been charged.',
      cost: 0,
    });
    expect(await moneyOf(input.accountId)).toEqual({ balance: 1_000_000n, reserved: 0n, spent: 0n });
  });

  it('retries transient provider errors with backoff, then completes, charged once', async () => {
    const input = await newTaskInput();
    let calls = 0;
    const { result, history } = await run({
      input,
      provider: async () => {
        calls += 1;
        if (calls < 3) throw new Error(`upstream 503 #${calls}`);
        return { outputs: ['http://files.test/out.png'] };
      },
    });
    expect(calls).toBe(3);
    expect(result?.status).toBe('completed');
    expect(await moneyOf(input.accountId)).toEqual({ balance: 500_000n, reserved: 0n, spent: 500_000n });
    const failedAttempts = history.events?.filter((event) => event.activityTaskFailedEventAttributes) ?? [];
    expect(failedAttempts).toHaveLength(0); // retries happen inside one scheduled activity; only the last attempt is recorded
  });

  it('an unknown provider error ends in a generic, caller-safe message once retries run out', async () => {
    const input = await newTaskInput();
    const { result } = await run({
      input,
      provider: async () => {
        throw new Error('connect ECONNREFUSED 10.0.0.7:443 (secret-host)');
      },
    });
    expect(result).toMatchObject({
      status: 'failed',
      error: 'The generation failed at the provider. You have not been charged.',
    });
    expect(result?.error).not.toContain('secret-host');
    expect(await moneyOf(input.accountId)).toEqual({ balance: 1_000_000n, reserved: 0n, spent: 0n });
  });

  it('a model that does not finish within its timeout fails the task and releases everything', async () => {
    const input = await newTaskInput({ timeoutSeconds: 2 });
    const { result } = await run({
      input,
      provider: () => new Promise((resolve) => setTimeout(() => resolve({ outputs: [] }), 4_000)),
    });
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
    // 2 input tokens and 1000 output tokens, as quoted.
    const input = await newTaskInput({ costMicros: 2_502n, request: textRequest });
    const { result } = await run({
      input,
      provider: async () => ({
        outputs: ['http://files.test/answer.txt'],
        usage: { input_tokens: 9, output_tokens: 12 },
      }),
    });
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
    const { failure } = await run({
      input,
      provider: async () => {
        started();
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        return { outputs: [] };
      },
      whileRunning: async (handle) => {
        await providerStarted;
        await handle.cancel();
      },
    });
    // The workflow ends cancelled; the task it ran ends failed and refunded.
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect(await database.prisma.task.findUniqueOrThrow({ where: { id: input.taskId } })).toMatchObject({
      status: 'failed',
      error: 'cancelled',
    });
    expect(await moneyOf(input.accountId)).toEqual({ balance: 1_000_000n, reserved: 0n, spent: 0n });
  });

  it('a cancelled task says "cancelled", whatever the call it interrupted then failed with', async () => {
    const input = await newTaskInput();
    let started!: () => void;
    const providerStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const { failure } = await run({
      input,
      // As a download abandoned at the cancel fails: a refusal of its own, after the cancel was asked for.
      provider: async () => {
        started();
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        throw ApplicationFailure.nonRetryable('could not download the input: abandoned', 'ProviderRefusal');
      },
      whileRunning: async (handle) => {
        await providerStarted;
        await handle.cancel();
      },
    });
    expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect(await database.prisma.task.findUniqueOrThrow({ where: { id: input.taskId } })).toMatchObject({
      status: 'failed',
      error: 'cancelled',
    });
    expect(await moneyOf(input.accountId)).toEqual({ balance: 1_000_000n, reserved: 0n, spent: 0n });
  });

  it('a later run of an ended task’s id (a retried POST racing its end) answers the task and runs nothing again', async () => {
    const input = await newTaskInput();
    let calls = 0;
    const provider = async () => {
      calls += 1;
      return { outputs: ['http://files.test/out.png'] };
    };
    const first = await run({ input, provider });
    expect(first.result).toMatchObject({ status: 'completed', cost: 0.5 });
    const again = await run({ input, provider });
    expect(again.admission).toMatchObject({ outcome: 'admitted', task: { id: input.taskId, status: 'completed' } });
    expect(again.result).toEqual(first.result);
    expect(calls).toBe(1);
    expect(await ledgerKinds(input.taskId)).toEqual(['charge', 'reserve']);
    expect(await moneyOf(input.accountId)).toEqual({ balance: 500_000n, reserved: 0n, spent: 500_000n });
  });

  it('refuses admission beyond the available balance: no task, nothing reserved, the workflow ends', async () => {
    const input = await newTaskInput({ costMicros: 1_500_000n });
    const { admission, failure, result } = await run({
      input,
      provider: async () => {
        throw new Error('must not run');
      },
    });
    expect(admission).toEqual({ outcome: 'insufficient_funds', availableMicros: '1000000' });
    // A refusal is an outcome, not a failure: the workflow completes, without a task.
    expect(failure).toBeUndefined();
    expect(result).toBeNull();
    expect(await database.prisma.task.count({ where: { id: input.taskId } })).toBe(0);
    expect(await moneyOf(input.accountId)).toEqual({ balance: 1_000_000n, reserved: 0n, spent: 0n });
  });

  // Temporal died after the update's local activity committed the row, before it saved the update: the workflow never
  // hears of its admission. A task without an Idempotency-Key (a random id, as here) has no retried POST to save it.
  describe('an admission whose update was lost', () => {
    it('the workflow adopts the row the lost update committed at its 30 s look: run, charged once', async () => {
      const input = await newTaskInput();
      await admitTask(database.prisma, { ...input, costMicros: BigInt(input.costMicros) });
      expect(await moneyOf(input.accountId)).toEqual({ balance: 1_000_000n, reserved: 500_000n, spent: 0n });
      let calls = 0;
      const { result, history } = await run({
        input,
        admit: false,
        provider: async () => {
          calls += 1;
          return { outputs: ['http://files.test/out.png'] };
        },
      });
      expect(result).toMatchObject({ id: input.taskId, status: 'completed', cost: 0.5 });
      expect(calls).toBe(1);
      expect(await moneyOf(input.accountId)).toEqual({ balance: 500_000n, reserved: 0n, spent: 500_000n });
      expect(await ledgerKinds(input.taskId)).toEqual(['charge', 'reserve']);
      const timers = history.events?.filter((event) => event.timerFiredEventAttributes) ?? [];
      expect(timers).toHaveLength(1);
      // The look for a lost update's row, not the 5-minute admission timeout.
      const started = history.events?.filter((event) => event.timerStartedEventAttributes) ?? [];
      expect(started.map((event) => Number(event.timerStartedEventAttributes!.startToFireTimeout!.seconds))).toEqual([
        30,
      ]);
    });

    it('without a row (the update never ran), the workflow ends failed after its timeout and reserves nothing', async () => {
      const input = await newTaskInput();
      const { failure } = await run({
        input,
        admit: false,
        provider: async () => {
          throw new Error('must not run');
        },
      });
      expect(failure).toBeInstanceOf(WorkflowFailedError);
      expect((failure as WorkflowFailedError).cause).toMatchObject({ type: 'AdmissionFailed' });
      expect(await database.prisma.task.count({ where: { id: input.taskId } })).toBe(0);
      expect(await moneyOf(input.accountId)).toEqual({ balance: 1_000_000n, reserved: 0n, spent: 0n });
    });
  });

  describe('fallback routes (FLUX schnell: fal, then Replicate)', () => {
    const schnellInput = async () => ({
      ...(await newTaskInput({ request: schnellRequest, costMicros: 3_000n })), // the quote of one image
      fallbackProviders: ['replicate'],
    });
    const replicateRun = (calls: unknown[]) => ({
      generateOutputs: async (input: unknown) => {
        calls.push(input);
        return { outputs: ['http://files.test/out-0.png'] };
      },
    });

    it("the gateway's account refused at fal: Replicate serves it, told it is route 1 after fal, charged once", async () => {
      const input = await schnellInput();
      const calls: unknown[] = [];
      const { result } = await run({
        input,
        provider: async () => {
          throw ApplicationFailure.nonRetryable(
            "The provider refused the gateway's credentials (HTTP 401)",
            'ProviderUnavailable',
          );
        },
        fallback: replicateRun(calls),
      });
      expect(result).toMatchObject({ status: 'completed', cost: 0.003, served_by: 'replicate' });
      expect(calls).toEqual([expect.objectContaining({ taskId: input.taskId, route: 1, fallbackFrom: 'fal' })]);
      expect(await moneyOf(input.accountId)).toEqual({ balance: 997_000n, reserved: 0n, spent: 3_000n });
    });

    it("a refusal of the caller's request at fal is not tried at Replicate: failed, refunded", async () => {
      const input = await schnellInput();
      const calls: unknown[] = [];
      const { result } = await run({
        input,
        provider: async () => {
          throw ApplicationFailure.nonRetryable('The provider rejected the request (HTTP 422).', 'ProviderRefusal');
        },
        fallback: replicateRun(calls),
      });
      expect(result).toMatchObject({
        status: 'failed',
        error: 'The provider rejected the request (HTTP 422).',
        cost: 0,
      });
      expect(result?.served_by).toBeUndefined();
      expect(calls).toEqual([]);
      expect(await moneyOf(input.accountId)).toEqual({ balance: 1_000_000n, reserved: 0n, spent: 0n });
    });

    it("every route failing fails the task with the last one's reason, refunded", async () => {
      const input = await schnellInput();
      const { result } = await run({
        input,
        provider: async () => {
          throw new Error('fal answered HTTP 503');
        },
        fallback: {
          generateOutputs: async () => {
            throw ApplicationFailure.nonRetryable('fal/flux-schnell cannot run on this server', 'RouteUnavailable');
          },
        },
      });
      expect(result).toMatchObject({ status: 'failed', error: 'fal/flux-schnell cannot run on this server', cost: 0 });
      expect(await moneyOf(input.accountId)).toEqual({ balance: 1_000_000n, reserved: 0n, spent: 0n });
    });
  });

  describe('an upstream job (fal, Replicate)', () => {
    const collected = async () => ({ outputs: ['http://files.test/clip.mp4'] });
    // The run's own events: after admission (whose timeout timer, cancelled once admitted, comes first).
    const afterAdmission = (history: temporal.api.history.v1.IHistory) => {
      const events = history.events ?? [];
      return events.slice(events.findIndex((event) => event.activityTaskScheduledEventAttributes));
    };
    /** Resolves once the workflow has the job and waits on its poll timer. */
    const waitingOnTimer = async (handle: WorkflowHandle<typeof generationWorkflow>) => {
      const deadline = Date.now() + 30_000;
      while (!afterAdmission(await handle.fetchHistory()).some((event) => event.timerStartedEventAttributes)) {
        if (Date.now() > deadline) throw new Error('the workflow never started waiting on its poll timer');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const timerDurations = (history: temporal.api.history.v1.IHistory) =>
      afterAdmission(history).flatMap((event) =>
        event.timerStartedEventAttributes
          ? [
              Number(event.timerStartedEventAttributes.startToFireTimeout?.seconds ?? 0) * 1000 +
                Math.round((event.timerStartedEventAttributes.startToFireTimeout?.nanos ?? 0) / 1e6),
            ]
          : [],
      );

    it('polls on durable timers that grow by half up to the maximum, then collects and settles once', async () => {
      const input = await newTaskInput({ timeoutSeconds: 600, request: videoRequest });
      let checks = 0;
      const { result, history } = await run({
        input,
        provider: {
          generateOutputs: submitted(100, 400),
          checkUpstreamJob: async (job) => {
            expect(job).toEqual({ taskId: input.taskId, modelId: 'fal/veo-3-fast', jobId: 'job-1' });
            checks += 1;
            return checks < 7 ? { done: false, queuePosition: 7 - checks } : { done: true };
          },
          collectUpstreamJob: collected,
        },
      });
      expect(checks).toBe(7);
      expect(timerDurations(history)).toEqual([100, 150, 225, 338, 400, 400, 400]);
      expect(result).toMatchObject({ status: 'completed', output: 'http://files.test/clip.mp4', cost: 0.5 });
      expect(await moneyOf(input.accountId)).toEqual({ balance: 500_000n, reserved: 0n, spent: 500_000n });
    });

    it('a callback for the job wakes the wait at once; one for another job does not', async () => {
      const input = await newTaskInput({ timeoutSeconds: 7_200, request: videoRequest });
      let checks = 0;
      const { result, history } = await run({
        input,
        provider: {
          generateOutputs: submitted(3_600_000, 3_600_000),
          checkUpstreamJob: async () => {
            checks += 1;
            return { done: true };
          },
          collectUpstreamJob: collected,
        },
        whileRunning: async (handle) => {
          // Before result() is awaited the test server does not skip time: the hour-long poll timer really waits.
          await waitingOnTimer(handle);
          await handle.signal(upstreamCallbackSignal, { jobId: 'job-of-another-task' });
          await new Promise((resolve) => setTimeout(resolve, 1_000));
          expect(checks).toBe(0);
          await handle.signal(upstreamCallbackSignal, { jobId: 'job-1' });
        },
      });
      expect(checks).toBe(1);
      expect(result?.status).toBe('completed');
      const events = afterAdmission(history);
      expect(events.filter((event) => event.timerCanceledEventAttributes)).toHaveLength(1);
      expect(events.filter((event) => event.timerFiredEventAttributes)).toHaveLength(0);
    });

    it('a job that outlives the model timeout fails the task, is cancelled upstream, and everything is released', async () => {
      const input = await newTaskInput({ timeoutSeconds: 3, request: videoRequest });
      const cancelled: string[] = [];
      const { result } = await run({
        input,
        provider: {
          generateOutputs: submitted(200, 500),
          checkUpstreamJob: async () => ({ done: false }),
          cancelUpstreamJob: async (job) => {
            cancelled.push(job.jobId);
          },
        },
      });
      expect(result).toMatchObject({ status: 'failed', error: 'The model did not finish within 3 seconds.', cost: 0 });
      expect(cancelled).toEqual(['job-1']);
      expect(await moneyOf(input.accountId)).toEqual({ balance: 1_000_000n, reserved: 0n, spent: 0n });
    });

    it('a job the upstream failed ends the task with its reason, refunded, without collecting', async () => {
      const input = await newTaskInput({ timeoutSeconds: 600, request: videoRequest });
      let collectedCalls = 0;
      const { result } = await run({
        input,
        provider: {
          generateOutputs: submitted(100, 100),
          checkUpstreamJob: async () => {
            throw ApplicationFailure.nonRetryable('The model failed: CUDA out of memory', 'ProviderRefusal');
          },
          collectUpstreamJob: async () => {
            collectedCalls += 1;
            return collected();
          },
          cancelUpstreamJob: async () => undefined,
        },
      });
      expect(collectedCalls).toBe(0);
      expect(result).toMatchObject({ status: 'failed', error: 'The model failed: CUDA out of memory', cost: 0 });
      expect(await moneyOf(input.accountId)).toEqual({ balance: 1_000_000n, reserved: 0n, spent: 0n });
    });

    it('a task cancelled while its job is being submitted still cancels the job the submission made', async () => {
      const input = await newTaskInput({ timeoutSeconds: 7_200, request: videoRequest });
      const cancelled: string[] = [];
      let submitting!: () => void;
      const submissionStarted = new Promise<void>((resolve) => {
        submitting = resolve;
      });
      const { failure } = await run({
        input,
        provider: {
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
        whileRunning: async (handle) => {
          await submissionStarted;
          await handle.cancel();
        },
      });
      expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
      expect(cancelled).toEqual(['job-late']);
      expect(await moneyOf(input.accountId)).toEqual({ balance: 1_000_000n, reserved: 0n, spent: 0n });
    });

    it('a task cancelled while its job waits cancels the job upstream and is refunded', async () => {
      const input = await newTaskInput({ timeoutSeconds: 7_200, request: videoRequest });
      const cancelled: string[] = [];
      const { failure } = await run({
        input,
        provider: {
          generateOutputs: submitted(3_600_000, 3_600_000),
          checkUpstreamJob: async () => ({ done: false }),
          cancelUpstreamJob: async (job) => {
            cancelled.push(job.jobId);
          },
        },
        whileRunning: async (handle) => {
          await waitingOnTimer(handle);
          await handle.cancel();
        },
      });
      expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
      expect(cancelled).toEqual(['job-1']);
      expect(await database.prisma.task.findUniqueOrThrow({ where: { id: input.taskId } })).toMatchObject({
        status: 'failed',
      });
      expect(await moneyOf(input.accountId)).toEqual({ balance: 1_000_000n, reserved: 0n, spent: 0n });
    });
  });
});
