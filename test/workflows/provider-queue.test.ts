// Waiting for a provider slot (the provider worker's *_CONCURRENCY) is not the model's time: on the dev server (real
// time), tasks queued behind each other still get their whole model timeout, and a task that never gets a slot ends
// failed, refunded, saying the gateway was busy.
import { Context } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withinModelTime } from '../../activities/model-time.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { generationWorkflowHarness, schnellRequest, textToVideoRequest } from '../helpers/generation-workflow.ts';
import { bundleWorkflows, createDevServerEnv } from '../helpers/temporal.ts';

const context = {} as {
  env: TestWorkflowEnvironment;
  database: TestDatabase;
  workflowBundle: WorkflowBundleWithSourceMap;
};
const { newTaskInput, run, runTogether } = generationWorkflowHarness(context);

beforeAll(async () => {
  [context.env, context.database, context.workflowBundle] = await Promise.all([
    createDevServerEnv(),
    createTestDatabase(),
    bundleWorkflows(),
  ]);
}, 120_000);
afterAll(async () => {
  await context.env?.teardown();
  await context.database?.drop();
});

const reservedOf = async (accountId: string) =>
  (await context.database.prisma.balance.findUniqueOrThrow({ where: { accountId } })).reserved;

describe('provider slots', () => {
  it('four 1 s calls through one slot, each with a 3 s model timeout: all complete (queueing is not timed as the model)', async () => {
    const inputs = await Promise.all(
      [1, 2, 3, 4].map(() => newTaskInput({ timeoutSeconds: 3, queueTimeoutSeconds: 60 })),
    );
    const outcomes = await runTogether(inputs, {
      providerSlots: 1,
      provider: () =>
        new Promise((resolve) => setTimeout(() => resolve({ outputs: ['http://files.test/o.png'] }), 1_000)),
    });
    // The last of them waited ≈3 s for the slot: with its run, more than its model timeout.
    expect(outcomes.map((outcome) => outcome.result?.status)).toEqual(Array(4).fill('completed'));
  }, 60_000);

  it('without a queue bound (tasks started before it), the wait counts against the model, as it did', async () => {
    const inputs = await Promise.all([1, 2, 3, 4].map(() => newTaskInput({ timeoutSeconds: 3 })));
    const outcomes = await runTogether(inputs, {
      providerSlots: 1,
      provider: () =>
        new Promise((resolve) => setTimeout(() => resolve({ outputs: ['http://files.test/o.png'] }), 1_000)),
    });
    const errors = outcomes.map((outcome) => outcome.result?.error).filter(Boolean);
    expect(errors).toContain('The model did not finish within 3 seconds.');
  }, 60_000);

  it('a task that gets no slot within the queue bound ends failed, refunded, saying the gateway was busy', async () => {
    const input = await newTaskInput({ timeoutSeconds: 120, queueTimeoutSeconds: 2 });
    const started = Date.now();
    const { result } = await run({ input, providerSlots: 0, provider: async () => ({ outputs: [] }) });
    expect(result).toMatchObject({
      status: 'failed',
      cost: 0,
      error: 'The model could not start within 2 seconds: the gateway is busy. You have not been charged.',
    });
    expect(await reservedOf(input.accountId)).toBe(0n);
    // Bounded by the queue bound, not the model's 120 s.
    expect(Date.now() - started).toBeLessThan(60_000);
  }, 90_000);

  it('an upstream job whose submission waited for a slot is polled for its whole model timeout after it', async () => {
    const job = (queuedMs?: number) => ({ jobId: 'job-1', pollIntervalMs: 200, pollMaxIntervalMs: 200, queuedMs });
    // The submitting activity says it waited 2 s for its slot; the job then takes 3 s of a 4 s model timeout.
    const runJob = async (queuedMs?: number) => {
      const input = await newTaskInput({ timeoutSeconds: 4, queueTimeoutSeconds: 60, request: textToVideoRequest });
      let submittedAt = 0;
      return run({
        input,
        provider: {
          generateOutputs: async () => {
            await new Promise((resolve) => setTimeout(resolve, 2_000));
            submittedAt = Date.now();
            return { job: job(queuedMs) };
          },
          checkUpstreamJob: async () => ({ done: Date.now() - submittedAt >= 3_000 }),
          collectUpstreamJob: async () => ({ outputs: ['http://files.test/clip.mp4'] }),
          cancelUpstreamJob: async () => void cancelled.push(input.taskId),
        },
      });
    };
    const cancelled: string[] = [];
    expect((await runJob(2_000)).result).toMatchObject({ status: 'completed' });
    // The same job with the 2 s counted as the model's (5 s in all): past its timeout.
    expect((await runJob()).result).toMatchObject({
      status: 'failed',
      error: 'The model did not finish within 4 seconds.',
    });
    expect(cancelled).toHaveLength(1); // the job that outlived the timeout, and only it
  }, 60_000);

  it("the model's time holds across attempts: a retry after a transient error gets only what is left", async () => {
    const input = await newTaskInput({ timeoutSeconds: 2, queueTimeoutSeconds: 60 });
    const attempts: { attempt: number; ranMs: number }[] = [];
    const { result } = await run({
      input,
      // As the real provider call: its steps run within the model's time (activities/model-time.ts).
      provider: () =>
        withinModelTime(async (signal) => {
          const started = Date.now();
          const { attempt } = Context.current().info;
          try {
            if (attempt === 1) {
              await new Promise((resolve) => setTimeout(resolve, 1_200));
              throw new Error('HTTP 503 from the upstream');
            }
            await new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
            return { outputs: [] };
          } finally {
            attempts.push({ attempt, ranMs: Date.now() - started });
          }
        }),
    });
    expect(result).toMatchObject({ status: 'failed', error: 'The model did not finish within 2 seconds.' });
    // The second attempt had the 0.8 s the first left, not a fresh 2 s; there was no third.
    expect(attempts.map((entry) => entry.attempt)).toEqual([1, 2]);
    expect(attempts[1]!.ranMs).toBeLessThan(1_500);
    expect(await reservedOf(input.accountId)).toBe(0n);
  }, 60_000);

  it("a route that gets no slot within the queue bound falls back: the wait was not the model's time", async () => {
    const input = {
      ...(await newTaskInput({
        request: schnellRequest,
        costMicros: 3_000n,
        timeoutSeconds: 1,
        queueTimeoutSeconds: 2,
      })),
      fallbackProviders: ['replicate'],
    };
    const { result } = await run({
      input,
      providerSlots: 0, // fal's queue has no worker: every slot is taken
      provider: async () => ({ outputs: [] }),
      fallback: { generateOutputs: async () => ({ outputs: ['http://files.test/out-0.png'] }) },
    });
    expect(result).toMatchObject({
      status: 'completed',
      served_by: 'replicate',
      output: 'http://files.test/out-0.png',
    });
  }, 60_000);
});
