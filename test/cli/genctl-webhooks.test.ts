// genctl webhooks list|show|redeliver: the real command line against a real database and a Temporal dev server,
// with a worker on the webhooks task queue delivering to a real receiver.
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookActivities } from '../../activities/webhook.activities.ts';
import { loadConfig } from '../../src/config/config.ts';
import { newId } from '../../src/domain/ids.ts';
import { startWebhookDelivery } from '../../src/use-cases/temporal/webhook-deliveries.ts';
import { createWebhookMessage, deliveryWorkflowId } from '../../src/webhooks/messages.ts';
import { createFundedAccount } from '../helpers/accounts.ts';
import { mergeConfig } from '../helpers/config.ts';
import { runGenctl } from '../helpers/genctl.ts';
import { useDevServerAndDatabase } from '../helpers/stack.ts';
import { bundleWorkflows, uniqueTaskQueue } from '../helpers/temporal.ts';
import { type Receiver, startReceiver, verifyDelivery } from '../../harness/webhook-receiver.ts';
import { webhookStarter } from '../../src/use-cases/temporal/worker-starter.ts';
import { messageToWebhook } from '../helpers/webhook-messages.ts';

const stack = useDevServerAndDatabase();
const taskQueue = uniqueTaskQueue('genctl-webhooks');
let worker: Worker;
let workerRun: Promise<void>;
let receiver: Receiver;

beforeAll(async () => {
  // /flaky is gone (410) the first time, then takes the redelivery; /down always answers 500.
  receiver = await startReceiver(({ path }, index) => ({ status: path === '/down' ? 500 : index === 0 ? 410 : 200 }));
  const config = mergeConfig(loadConfig({ ALLOW_PRIVATE_WEBHOOK_URLS: 'true' }, []), {
    temporal: { taskQueue },
  });
  worker = await Worker.create({
    connection: stack.env.nativeConnection,
    taskQueue,
    workflowBundle: await bundleWorkflows(),
    activities: createWebhookActivities({
      prisma: stack.database.prisma,
      config,
      starter: webhookStarter({ prisma: stack.database.prisma, config }),
    }),
  });
  workerRun = worker.run();
});
afterAll(async () => {
  worker?.shutdown();
  await workerRun;
  await receiver?.close();
});

const genctl = (...args: string[]) =>
  runGenctl(
    { DATABASE_URL: stack.database.url, TEMPORAL_ADDRESS: stack.env.address, TEMPORAL_TASK_QUEUE: taskQueue },
    args,
  );

/** A generation.completed message for a new agent whose webhook is `path` on the receiver, delivered once. */
async function deliveredMessage(path: string) {
  const { accountId, url, taskId, messageId } = await messageToWebhook(stack.database.prisma, {
    url: `http://127.0.0.1:${receiver.port}${path}`,
    event: 'generation.completed',
    data: (id) => ({ id }),
  });
  await startWebhookDelivery(stack.env.client, taskQueue, { messageId, url }, 'once');
  await expect
    .poll(() => stack.database.prisma.webhookDelivery.count({ where: { messageId } }), { timeout: 10_000 })
    .toBeGreaterThan(0);
  return { accountId, url, taskId, messageId };
}

describe('genctl webhooks', () => {
  it('lists and shows the delivery log, and redelivers the same message to its target', async () => {
    const { accountId, url, taskId, messageId } = await deliveredMessage('/flaky');
    await stack.env.client.workflow.getHandle(deliveryWorkflowId(messageId, url)).result();

    const listed = await genctl('webhooks', 'list', '--task', taskId, '--json');
    expect(listed.json).toEqual({
      messages: [
        {
          message_id: messageId,
          event: 'generation.completed',
          task_id: taskId,
          account_id: accountId,
          created_at: expect.any(String),
          targets: [
            {
              url,
              state: 'gone',
              attempts: 1,
              last_attempt: expect.objectContaining({ attempt: 1, status_code: 410, next_attempt_at: null }),
            },
          ],
        },
      ],
    });
    const shown = await genctl('webhooks', 'show', messageId);
    expect(shown.stdout).toContain(`${url}: gone`);
    expect(shown.stdout).toMatch(/#1 .* HTTP 410/);
    expect((await genctl('webhooks', 'show', messageId, '--json')).json.body).toEqual({
      event: 'generation.completed',
      data: { id: taskId },
    });

    const redelivered = await genctl('webhooks', 'redeliver', messageId, '--json');
    expect(redelivered).toMatchObject({
      code: 0,
      json: { message_id: messageId, targets: [{ url, redelivery: 'started', first_attempt: 2 }] },
    });
    await expect
      .poll(
        async () => (await genctl('webhooks', 'list', '--account', accountId, '--json')).json.messages[0].targets[0],
        { timeout: 10_000 },
      )
      .toMatchObject({ state: 'delivered', attempts: 2, last_attempt: { attempt: 2, status_code: 200 } });
    const secret = (await stack.database.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).webhookSecret!;
    const deliveries = receiver.received.filter((delivery) => delivery.headers['webhook-id'] === messageId);
    expect(deliveries).toHaveLength(2);
    for (const delivery of deliveries)
      expect(verifyDelivery(secret, delivery)).toEqual({ event: 'generation.completed', data: { id: taskId } });
  });

  it('leaves a delivery that is still retrying alone, and refuses unknown messages and targets', async () => {
    const { messageId, url } = await deliveredMessage('/down');
    const running = await genctl('webhooks', 'redeliver', messageId);
    expect(running.code).toBe(1);
    expect(running.stderr).toMatch(/is still being delivered to .*\/down; its schedule continues/);
    expect(
      (
        await genctl(
          'webhooks',
          'list',
          '--task',
          (await stack.database.prisma.webhookMessage.findUniqueOrThrow({ where: { id: messageId } })).taskId!,
          '--json',
        )
      ).json.messages[0].targets[0],
    ).toMatchObject({
      state: 'retrying',
      last_attempt: { status_code: 500, error: 'HTTP 500', next_attempt_at: expect.any(String) },
    });
    await stack.env.client.workflow.getHandle(deliveryWorkflowId(messageId, url)).terminate('test over');

    const elsewhere = await genctl('webhooks', 'redeliver', messageId, '--url', 'https://attacker.example/');
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toMatch(/was never sent to https:\/\/attacker\.example\//);
  });

  it.each([
    [['webhooks', 'show', 'msg_nothing'], 1, /no webhook message msg_nothing/],
    [['webhooks', 'redeliver', 'msg_nothing'], 1, /no webhook message msg_nothing/],
    [['webhooks', 'show'], 2, /missing the message id/],
    [['webhooks', 'list', '--limit', '0'], 2, /--limit must be a whole number, at least 1/],
  ])('genctl %j exits %i with a clear message', async (args, code, message) => {
    const result = await genctl(...args);
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
  });

  it("redelivers a message whose notify step gave up before any attempt, to its account's webhook as it is now", async () => {
    const accountId = await createFundedAccount(stack.database.prisma, { kind: 'agent' });
    // The host in capitals and the default port: the same endpoint, delivered to under its normal spelling.
    await stack.database.prisma.account.update({
      where: { id: accountId },
      data: { webhookUrl: `http://LOCALHOST:${receiver.port}/late` },
    });
    const taskId = newId('gen');
    const { messageId, targets } = await createWebhookMessage(stack.database.prisma, {
      event: 'generation.failed',
      subject: taskId,
      accountId,
      taskId,
      data: { id: taskId },
    });
    const url = `http://localhost:${receiver.port}/late`;
    expect(targets.map((target) => target.url)).toEqual([url]);
    const redelivered = await genctl('webhooks', 'redeliver', messageId, '--json');
    expect(redelivered).toMatchObject({
      code: 0,
      json: { targets: [{ url, redelivery: 'started', first_attempt: 1 }] },
    });
    await expect
      .poll(() => receiver.received.filter((delivery) => delivery.headers['webhook-id'] === messageId).length, {
        timeout: 10_000,
      })
      .toBe(1);
  });

  it('lists nothing for a task without messages', async () => {
    expect((await genctl('webhooks', 'list', '--task', 'gen_none')).stdout).toMatch(/No webhook messages\./);
  });
});
