// A webhook message for the delivery tests: a new agent whose webhook is `url`, and one event about a new task.
import type { PrismaClient } from '../../src/db/prisma.ts';
import { newId } from '../../src/domain/ids.ts';
import { createWebhookMessage, type WebhookEvent } from '../../src/webhooks/messages.ts';
import { createFundedAccount } from './accounts.ts';

export async function messageToWebhook(
  prisma: PrismaClient,
  { url, event, data }: { url: string; event: WebhookEvent; data: (taskId: string) => unknown },
) {
  const accountId = await createFundedAccount(prisma, { kind: 'agent' });
  await prisma.account.update({ where: { id: accountId }, data: { webhookUrl: url } });
  const taskId = newId('gen');
  const { messageId } = await createWebhookMessage(prisma, {
    event,
    subject: taskId,
    accountId,
    taskId,
    data: data(taskId),
  });
  return { accountId, taskId, messageId, url };
}
