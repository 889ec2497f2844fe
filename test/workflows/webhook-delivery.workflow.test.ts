// Webhook delivery on the time-skipping server, with the real activities on a real database against real
// receivers: the retry schedule and its 24-hour horizon, 410, Retry-After, refusals, a receiver that is down and
// comes up, the hand-over from an emitter's first attempt, and the notify step's message and targets.
import { MockActivityEnvironment, type TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookActivities } from '../../activities/webhook.activities.ts';
import { loadConfig } from '../../src/config/config.ts';
import { newId } from '../../src/domain/ids.ts';
import { type CreatedMessage, deliveryWorkflowId, webhookMessageId } from '../../src/webhooks/messages.ts';
import { deliverySchedule, maxRetryAfterMs } from '../../workflows/webhooks/delivery-attempt.ts';
import { createFundedAccount } from '../helpers/accounts.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { bundleWorkflows, createTimeSkippingEnv } from '../helpers/temporal.ts';
import { webhookDeliveryHarness } from '../helpers/webhook-delivery-workflow.ts';
import { type ReceivedWebhook, verifyDelivery } from '../../harness/webhook-receiver.ts';
import { webhookStarter } from '../../src/use-cases/temporal/worker-starter.ts';

const context = {} as {
  env: TestWorkflowEnvironment;
  database: TestDatabase;
  workflowBundle: WorkflowBundleWithSourceMap;
};
const { receiver, messageTo, deliver, deliverThroughOutage, closeReceivers } = webhookDeliveryHarness(context);
let env: TestWorkflowEnvironment;
let database: TestDatabase;
let workflowBundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  [env, database, workflowBundle] = await Promise.all([
    createTimeSkippingEnv(),
    createTestDatabase(),
    bundleWorkflows(),
  ]);
  Object.assign(context, { env, database, workflowBundle });
});
afterAll(async () => {
  await closeReceivers();
  await env?.teardown();
  await database?.drop();
});

const second = 1_000;
const hour = 3_600 * second;

const secretOf = async (accountId: string) =>
  (await database.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).webhookSecret!;
const logOf = (messageId: string) =>
  database.prisma.webhookDelivery.findMany({ where: { messageId }, orderBy: { attempt: 'asc' } });
const gaps = (deliveries: ReceivedWebhook[]) =>
  deliveries.slice(1).map((delivery, index) => delivery.at! - deliveries[index]!.at!);

describe('webhookDeliveryWorkflow', () => {
  it('retries on the schedule (now, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, ±10 %) for more than 24 hours, then gives up', async () => {
    const down = await receiver({ answers: deliverySchedule.map(() => ({ status: 503 })) });
    const message = await messageTo(down.url);
    const startedAt = await env.currentTimeMs();
    const wallStart = Date.now();

    expect(await deliver({ message })).toMatchObject({ outcome: 'exhausted', attempts: 8 });

    expect(down.received).toHaveLength(8);
    gaps(down.received).forEach((gap, index) => {
      const planned = deliverySchedule[index + 1]!;
      expect(gap, `gap before attempt ${index + 2}`).toBeGreaterThanOrEqual(planned * 0.9);
      expect(gap, `gap before attempt ${index + 2}`).toBeLessThanOrEqual(planned * 1.1 + 2 * second);
    });
    expect(down.received.at(-1)!.at! - down.received[0]!.at!).toBeGreaterThanOrEqual(24 * hour);
    expect(down.received[0]!.at! - startedAt).toBeLessThan(5 * second);
    expect(Date.now() - wallStart).toBeLessThan(60_000);
    // Every attempt is the same message: the same webhook-id, each one verifying with the account's secret.
    const secret = await secretOf(message.accountId);
    expect(new Set(down.received.map((delivery) => delivery.headers['webhook-id']))).toEqual(
      new Set([message.messageId]),
    );
    for (const delivery of down.received)
      expect(verifyDelivery(secret, delivery)).toMatchObject({ event: 'generation.completed' });

    const log = await logOf(message.messageId);
    expect(log.map((row) => [row.attempt, row.statusCode, row.error])).toEqual(
      deliverySchedule.map((_, index) => [index + 1, 503, 'HTTP 503']),
    );
    expect(log.slice(0, 7).every((row) => row.nextAttemptAt !== null)).toBe(true);
    expect(log[7]!.nextAttemptAt).toBeNull();
    expect(
      log.every(
        (row) => row.url === down.url && row.event === 'generation.completed' && row.accountId === message.accountId,
      ),
    ).toBe(true);
  });

  it('410 stops retrying that endpoint after one attempt', async () => {
    const gone = await receiver({ answers: [{ status: 410 }] });
    const message = await messageTo(gone.url);
    expect(await deliver({ message })).toMatchObject({ outcome: 'gone', attempts: 1 });
    expect(gone.received).toHaveLength(1);
    expect((await logOf(message.messageId)).map((row) => [row.statusCode, row.nextAttemptAt])).toEqual([[410, null]]);
  });

  it('honours Retry-After beyond the schedule, up to its cap', async () => {
    const busy = await receiver({
      answers: [
        { status: 429, headers: { 'retry-after': '3600' } },
        { status: 503, headers: { 'retry-after': String(48 * 3600) } },
      ],
    });
    const message = await messageTo(busy.url);
    expect(await deliver({ message })).toMatchObject({ outcome: 'delivered', attempts: 3 });
    const [first, second_] = gaps(busy.received);
    expect(first).toBeGreaterThanOrEqual(hour); // the schedule said 5 s
    expect(first).toBeLessThan(hour + 10 * second);
    expect(second_).toBeGreaterThanOrEqual(maxRetryAfterMs); // the receiver asked for 48 h: capped at 10 h
    expect(second_).toBeLessThan(maxRetryAfterMs + 10 * second);
    const log = await logOf(message.messageId);
    expect(log[0]!.nextAttemptAt!.getTime() - log[0]!.createdAt.getTime()).toBeGreaterThan(0);
  });

  it('a receiver that is down, then failing, then up gets the message once, with the same webhook-id each time', async () => {
    const { message, result, received } = await deliverThroughOutage();
    expect(result).toMatchObject({ outcome: 'delivered', attempts: 3 });
    expect(received).toHaveLength(2);
    const secret = await secretOf(message.accountId);
    for (const delivery of received) {
      expect(delivery.headers['webhook-id']).toBe(message.messageId);
      expect(verifyDelivery(secret, delivery)).toMatchObject({ event: 'generation.completed' });
    }
    const log = await logOf(message.messageId);
    expect(log.map((row) => [row.attempt, row.statusCode, row.error, row.messageId])).toEqual([
      [1, null, 'connection failed: ECONNREFUSED', message.messageId],
      [2, 503, 'HTTP 503', message.messageId],
      [3, 200, null, message.messageId],
    ]);
    expect(log[2]!.nextAttemptAt).toBeNull();
  });

  it('a URL resolving to a private address is refused at once when private addresses are not allowed', async () => {
    const listening = await receiver();
    const message = await messageTo(`http://localhost:${listening.port}/hook`);
    const strictDeps = { prisma: database.prisma, config: loadConfig({ ALLOW_PRIVATE_WEBHOOK_URLS: 'false' }, []) };
    const strict = createWebhookActivities({ ...strictDeps, starter: webhookStarter(strictDeps) });
    expect(await deliver({ message, activities: { sendWebhook: strict.sendWebhook } })).toMatchObject({
      outcome: 'refused',
      attempts: 1,
    });
    expect(listening.received).toHaveLength(0);
    expect((await logOf(message.messageId)).map((row) => row.error)).toEqual([
      expect.stringMatching(/^localhost is a private address/),
    ]);
  });
});

describe("the hand-over and the notify step's message", () => {
  it("continues a schedule an emitter started: from the second attempt, when the first one's log said", async () => {
    const down = await receiver({ answers: [{ status: 503 }] });
    const message = await messageTo(down.url);
    const startedAt = await env.currentTimeMs();
    const nextAttemptAt = new Date(startedAt + 5 * second).toISOString();

    const result = await deliver({ message, from: { firstAttempt: 2, scheduleFrom: 1, nextAttemptAt } });

    expect(result).toMatchObject({ outcome: 'delivered', attempts: 2 });
    expect(down.received).toHaveLength(2);
    expect(down.received[0]!.at! - startedAt).toBeGreaterThanOrEqual(5 * second);
    // The third scheduled delay (5 min) came next, not the second one again.
    expect(gaps(down.received)[0]).toBeGreaterThanOrEqual(5 * 60 * second * 0.9);
    expect((await logOf(message.messageId)).map((row) => [row.attempt, row.statusCode])).toEqual([
      [2, 503],
      [3, 200],
    ]);
  });

  it("writes one message per event with each distinct target, the task's webhook and the account's; a repeat finds it", async () => {
    const [taskHook, accountHook] = [await receiver(), await receiver()];
    const accountId = await createFundedAccount(database.prisma, { kind: 'developer' });
    await database.prisma.account.update({ where: { id: accountId }, data: { webhookUrl: accountHook.url } });
    const deps = { prisma: database.prisma, config: loadConfig({ ALLOW_PRIVATE_WEBHOOK_URLS: 'true' }, []) };
    const activities = createWebhookActivities({ ...deps, starter: webhookStarter(deps) });
    const prepareFor = async (webhookUrl: string) => {
      const taskId = newId('gen');
      await database.prisma.task.create({
        data: {
          id: taskId,
          accountId,
          type: 'upscale',
          model: 'local/lanczos',
          status: 'completed',
          request: {},
          costReserved: 0n,
          webhookUrl,
        },
      });
      const input = {
        event: 'generation.completed' as const,
        subject: taskId,
        accountId,
        taskId,
        data: { id: taskId, status: 'completed' },
      };
      const prepare = () =>
        new MockActivityEnvironment().run(activities.prepareWebhookMessage, input) as Promise<CreatedMessage>;
      return { taskId, prepare };
    };

    const both = await prepareFor(taskHook.url);
    const messageId = webhookMessageId(both.taskId, 'generation.completed');
    const expected = {
      messageId,
      targets: [taskHook.url, accountHook.url].map((url) => ({ url, workflowId: deliveryWorkflowId(messageId, url) })),
    };
    expect(await both.prepare()).toEqual(expected);
    expect(await both.prepare()).toEqual(expected);
    expect(await database.prisma.webhookMessage.count({ where: { id: messageId } })).toBe(1);
    // The same URL as the task's and the account's webhook: one target.
    const same = await prepareFor(accountHook.url);
    expect((await same.prepare()).targets.map((target) => target.url)).toEqual([accountHook.url]);
    expect(
      JSON.parse((await database.prisma.webhookMessage.findUniqueOrThrow({ where: { id: messageId } })).body),
    ).toEqual({
      event: 'generation.completed',
      data: { id: both.taskId, status: 'completed' },
    });
  });
});
