// The worker role as operators run it (`npm start -- --role worker`, its own process) runs webhook deliveries on its
// main task queue, and drains the webhooks task queue where an earlier build left deliveries open: both reach a real
// receiver, signed.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startWebhookDelivery } from '../../src/use-cases/temporal/webhook-deliveries.ts';
import { deliveryWorkflowId } from '../../src/webhooks/messages.ts';
import { freePort } from '../../harness/ports.ts';
import { useDevServerAndDatabase } from '../helpers/stack.ts';
import { uniqueTaskQueue } from '../helpers/temporal.ts';
import { type Receiver, startReceiver, verifyDelivery } from '../../harness/webhook-receiver.ts';
import { launchWorkerProcess } from '../helpers/worker-process.ts';
import type { GatewayProcess } from '../../harness/stacks/gateway-process.ts';
import { messageToWebhook } from '../helpers/webhook-messages.ts';

const stack = useDevServerAndDatabase();
const webhookTaskQueue = uniqueTaskQueue('role-webhooks');
const taskQueue = uniqueTaskQueue('role');
let dataDir: string;
let receiver: Receiver;
let worker: GatewayProcess | undefined;
let earlier: { accountId: string; taskId: string };

/** A generation.failed message to the receiver, for a new account. */
const failedTaskMessage = () =>
  messageToWebhook(stack.database.prisma, {
    url: receiver.url,
    event: 'generation.failed',
    data: (taskId) => ({ id: taskId, status: 'failed' }),
  });

async function expectDelivered({ accountId, taskId }: { accountId: string; taskId: string }) {
  await expect.poll(() => receiver.received.some((each) => each.body.includes(taskId)), { timeout: 60_000 }).toBe(true);
  const secret = (await stack.database.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).webhookSecret!;
  expect(
    verifyDelivery(
      secret,
      receiver.received.find((each) => each.body.includes(taskId))!,
    ),
  ).toEqual({
    event: 'generation.failed',
    data: { id: taskId, status: 'failed' },
  });
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-worker-webhooks-'));
  receiver = await startReceiver();
  // A delivery an earlier build started on the webhooks queue, open when this build's worker starts.
  const message = await failedTaskMessage();
  earlier = message;
  await startWebhookDelivery(
    stack.env.client,
    webhookTaskQueue,
    { messageId: message.messageId, url: receiver.url },
    'once',
  );
  worker = await launchWorkerProcess({
    databaseUrl: stack.database.url,
    temporalAddress: stack.env.address,
    taskQueue,
    dataDir,
    env: { TEMPORAL_WEBHOOK_TASK_QUEUE: webhookTaskQueue, ALLOW_PRIVATE_WEBHOOK_URLS: 'true' },
  });
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await rm(dataDir, { recursive: true, force: true });
});

it('delivers on its main task queue', async () => {
  const message = await failedTaskMessage();
  await startWebhookDelivery(stack.env.client, taskQueue, { messageId: message.messageId, url: receiver.url }, 'once');
  await expectDelivered(message);
}, 90_000);

it('finishes the deliveries an earlier build left open on the webhooks task queue', async () => {
  await expectDelivered(earlier);
}, 90_000);

it('runs its workflow thread without the stack-trace promise hook (scripts/workflow-thread-preload.cjs)', async () => {
  const nobody = `http://127.0.0.1:${await freePort()}/hook`;
  const message = await failedTaskMessage();
  await startWebhookDelivery(stack.env.client, taskQueue, { messageId: message.messageId, url: nobody }, 'once');
  const delivery = stack.env.client.workflow.getHandle(deliveryWorkflowId(message.messageId, nobody));
  // Waiting for its next attempt, on the worker process: the stack-trace query is answered as not enabled.
  await expect
    .poll(() => stack.database.prisma.webhookDelivery.count({ where: { messageId: message.messageId } }), {
      timeout: 30_000,
    })
    .toBe(1);
  await expect(delivery.query('__stack_trace')).rejects.toThrow(/stack traces are not enabled/);
  await delivery.terminate('test over');
}, 90_000);
