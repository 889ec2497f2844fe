// The worker role as operators run it (`npm start -- --role worker`, its own process) polls the webhooks task
// queue beside the generations one: a delivery started there reaches a real receiver, signed.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.ts';
import { startWebhookDelivery } from '../../src/orchestration/webhooks/deliveries.ts';
import { createWebhookMessage } from '../../src/webhooks/messages.ts';
import { createFundedAccount } from '../helpers/accounts.ts';
import { useDevServerAndDatabase } from '../helpers/stack.ts';
import { uniqueTaskQueue } from '../helpers/temporal.ts';
import { type Receiver, startReceiver, verifyDelivery } from '../../harness/webhook-receiver.ts';
import { launchWorkerProcess } from '../helpers/worker-process.ts';
import type { GatewayProcess } from '../../harness/stacks/gateway-process.ts';

const stack = useDevServerAndDatabase();
const webhookTaskQueue = uniqueTaskQueue('role-webhooks');
let dataDir: string;
let receiver: Receiver;
let worker: GatewayProcess | undefined;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-worker-webhooks-'));
  receiver = await startReceiver();
  worker = await launchWorkerProcess({
    databaseUrl: stack.database.url,
    temporalAddress: stack.env.address,
    taskQueue: uniqueTaskQueue('role'),
    dataDir,
    env: { TEMPORAL_WEBHOOK_TASK_QUEUE: webhookTaskQueue, ALLOW_PRIVATE_WEBHOOK_URLS: 'true' },
  });
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await rm(dataDir, { recursive: true, force: true });
});

it('delivers from the webhooks task queue', async () => {
  const accountId = await createFundedAccount(stack.database.prisma, { kind: 'agent' });
  await stack.database.prisma.account.update({ where: { id: accountId }, data: { webhookUrl: receiver.url } });
  const taskId = newId('gen');
  const { messageId } = await createWebhookMessage(stack.database.prisma, {
    event: 'generation.failed',
    subject: taskId,
    accountId,
    taskId,
    data: { id: taskId, status: 'failed' },
  });
  await startWebhookDelivery(stack.env.client, webhookTaskQueue, { messageId, url: receiver.url }, 'once');

  await expect.poll(() => receiver.received.length, { timeout: 60_000 }).toBe(1);
  const secret = (await stack.database.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).webhookSecret!;
  expect(verifyDelivery(secret, receiver.received[0]!)).toEqual({
    event: 'generation.failed',
    data: { id: taskId, status: 'failed' },
  });
}, 90_000);
