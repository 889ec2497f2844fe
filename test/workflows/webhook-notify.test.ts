// The notify step inside the task's own workflow (time-skipping server, real activities, real receivers): the first
// attempt to each target is the workflow's own step, with no delivery workflow; only a failed one is handed over.
import { WorkflowNotFoundError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/workflow';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryWorkflowId, webhookMessageId } from '../../src/webhooks/messages.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { generationWorkflowHarness, upscaleRequest } from '../helpers/generation-workflow.ts';
import { bundleWorkflows, createTimeSkippingEnv } from '../helpers/temporal.ts';
import { type Answer, type Receiver, startReceiver, verifyDelivery } from '../../harness/webhook-receiver.ts';

const context = {} as {
  env: TestWorkflowEnvironment;
  database: TestDatabase;
  workflowBundle: WorkflowBundleWithSourceMap;
};
const { newTaskInput, run } = generationWorkflowHarness(context);
const receivers: Receiver[] = [];

beforeAll(async () => {
  [context.env, context.database, context.workflowBundle] = await Promise.all([
    createTimeSkippingEnv(),
    createTestDatabase(),
    bundleWorkflows(),
  ]);
});
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await context.env?.teardown();
  await context.database?.drop();
});

/** A receiver stamping each request with the test server's clock, answering `answers` in turn (then 200). */
async function receiver(answers: Answer[] = []): Promise<Receiver> {
  const started = await startReceiver(async (request, index) => {
    request.at = await context.env.currentTimeMs();
    return answers[index] ?? { status: 200 };
  });
  receivers.push(started);
  return started;
}

const logOf = (messageId: string) =>
  context.database.prisma.webhookDelivery.findMany({
    where: { messageId },
    orderBy: [{ attempt: 'asc' }, { url: 'asc' }],
  });
const delivered = async () => ({ outputs: ['http://files.test/out.png'] });
const secretOf = async (accountId: string) =>
  (await context.database.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).webhookSecret!;

/** A task whose own webhook is `taskHook`, of an account whose webhook is `accountHook`. */
async function taskWithWebhooks(taskHook: Receiver, accountHook?: Receiver) {
  const input = await newTaskInput({ request: { ...upscaleRequest, webhook_url: taskHook.url } });
  if (accountHook)
    await context.database.prisma.account.update({
      where: { id: input.accountId },
      data: { webhookUrl: accountHook.url },
    });
  return input;
}

describe('the notify step in the generation workflow', () => {
  it("sends the task's webhook and its account's once each from the task's own workflow, with no delivery workflow", async () => {
    const [taskHook, accountHook] = [await receiver(), await receiver()];
    const input = await taskWithWebhooks(taskHook, accountHook);

    const { result, history } = await run({ input, provider: delivered });

    expect(result).toMatchObject({ status: 'completed' });
    const messageId = webhookMessageId(input.taskId, 'generation.completed');
    const secret = await secretOf(input.accountId);
    for (const hook of [taskHook, accountHook]) {
      expect(hook.received).toHaveLength(1);
      expect(hook.received[0]!.headers['webhook-id']).toBe(messageId);
      expect(verifyDelivery(secret, hook.received[0]!)).toMatchObject({
        event: 'generation.completed',
        data: { id: input.taskId, status: 'completed' },
      });
      // Delivered at the first attempt: nothing was handed over.
      await expect(
        context.env.client.workflow.getHandle(deliveryWorkflowId(messageId, hook.url)).describe(),
      ).rejects.toBeInstanceOf(WorkflowNotFoundError);
    }
    const log = await logOf(messageId);
    expect(log.map((row) => [row.attempt, row.statusCode, row.nextAttemptAt])).toEqual([
      [1, 200, null],
      [1, 200, null],
    ]);
    expect(new Set(log.map((row) => row.url))).toEqual(new Set([taskHook.url, accountHook.url]));
    // Local activities: the task's history schedules no activity for its webhooks.
    const scheduled = history.events?.flatMap(
      (event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? [],
    );
    expect(scheduled).not.toContain('sendWebhook');
  });

  it('a failed first attempt hands the rest of the schedule to a delivery workflow, which delivers about 5 s later', async () => {
    const flaky = await receiver([{ status: 503 }]);
    const input = await taskWithWebhooks(flaky);
    const messageId = webhookMessageId(input.taskId, 'generation.completed');
    let handedOver: unknown;

    const { result } = await run({
      input,
      provider: delivered,
      afterwards: async () => {
        handedOver = await context.env.client.workflow.getHandle(deliveryWorkflowId(messageId, flaky.url)).result();
      },
    });

    expect(result).toMatchObject({ status: 'completed' });
    expect(handedOver).toEqual({ outcome: 'delivered', attempts: 1 });
    expect(flaky.received).toHaveLength(2);
    const gap = flaky.received[1]!.at! - flaky.received[0]!.at!;
    expect(gap).toBeGreaterThanOrEqual(4_500);
    expect(gap).toBeLessThan(60_000);
    const log = await logOf(messageId);
    expect(log.map((row) => [row.attempt, row.statusCode, row.error])).toEqual([
      [1, 503, 'HTTP 503'],
      [2, 200, null],
    ]);
    expect(log[0]!.nextAttemptAt).not.toBeNull();
  });

  it('a failed task notifies its webhook of generation.failed the same way', async () => {
    const hook = await receiver();
    const input = await taskWithWebhooks(hook);

    const { result } = await run({
      input,
      provider: async () => {
        throw ApplicationFailure.nonRetryable('the input is not an image this server can read', 'ProviderRefusal');
      },
    });

    expect(result).toMatchObject({ status: 'failed' });
    expect(hook.received).toHaveLength(1);
    expect(verifyDelivery(await secretOf(input.accountId), hook.received[0]!)).toMatchObject({
      event: 'generation.failed',
      data: { id: input.taskId, status: 'failed' },
    });
    const log = await logOf(webhookMessageId(input.taskId, 'generation.failed'));
    expect(log.map((row) => [row.attempt, row.statusCode])).toEqual([[1, 200]]);
  });
});
