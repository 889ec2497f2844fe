// Sending a logged message again (same webhook-id and body) on a fresh retry schedule, to each of its targets or to
// one: for operators (genctl webhooks redeliver) and for an account's own messages (POST /webhooks/deliveries/{id}/…).
import type { Client } from '@temporalio/client';
import type { PrismaClient } from '../../db/prisma.ts';
import { DomainError, NotFoundError } from '../../domain/errors.ts';
import { startWebhookDelivery } from '../temporal/webhook-deliveries.ts';
import { getMessage } from '../../webhooks/delivery-log.ts';
import { targetUrls, type WebhookEvent } from '../../webhooks/messages.ts';

export interface RedeliveryDeps {
  prisma: PrismaClient;
  temporal: () => Promise<Client>;
  taskQueue: string;
}

export interface Redelivery {
  messageId: string;
  targets: { url: string; redelivery: 'started' | 'still_running'; firstAttempt: number }[];
}

/**
 * `accountId`: the caller's account, whose messages alone it may send again (another's is not found); `onlyKeyId`: a
 * key with a policy, which may send again only the messages about the tasks it created.
 */
export async function redeliverMessage(
  deps: RedeliveryDeps,
  messageId: string,
  { url, accountId, onlyKeyId }: { url?: string; accountId?: string; onlyKeyId?: string } = {},
): Promise<Redelivery> {
  const summary = await getMessage(deps.prisma, messageId);
  const seen =
    summary &&
    (accountId === undefined || summary.message.accountId === accountId) &&
    (onlyKeyId === undefined || (await taskOfKey(deps.prisma, summary.message.taskId, onlyKeyId)));
  if (!summary || !seen) throw new NotFoundError(`There is no webhook message ${messageId}.`);
  // A message whose notify step gave up before any attempt has no targets in the log: its task's and account's
  // webhooks, as they are now, are where it was meant to go.
  const known =
    summary.targets.length > 0
      ? summary.targets
      : (
          await targetUrls(deps.prisma, {
            taskId: summary.message.taskId,
            accountId: summary.message.accountId,
            event: summary.message.event as WebhookEvent,
          })
        ).map((target) => ({ url: target, attempts: [] as { attempt: number }[] }));
  const targets = url ? known.filter((target) => target.url === url) : known;
  if (targets.length === 0) {
    throw new DomainError(
      'conflict',
      url
        ? `${messageId} was never sent to ${url}; its targets: ${known.map((target) => target.url).join(', ')}`
        : `${messageId} has no target (neither its task nor its account has a webhook)`,
    );
  }
  const client = await deps.temporal();
  const results: Redelivery['targets'] = [];
  for (const target of targets) {
    const firstAttempt = Math.max(0, ...target.attempts.map((row) => row.attempt)) + 1;
    const start = await startWebhookDelivery(
      client,
      deps.taskQueue,
      { messageId, url: target.url, firstAttempt },
      'again',
    );
    results.push({ url: target.url, redelivery: start === 'started' ? 'started' : 'still_running', firstAttempt });
  }
  if (!results.some((result) => result.redelivery === 'started'))
    throw new DomainError(
      'conflict',
      `${messageId} is still being delivered to ${targets.map((target) => target.url).join(', ')}; its schedule continues`,
    );
  return { messageId, targets: results };
}

async function taskOfKey(prisma: PrismaClient, taskId: string | null, keyId: string): Promise<boolean> {
  if (taskId === null) return false;
  const task = await prisma.task.findUnique({ where: { id: taskId }, select: { apiKeyId: true } });
  return task?.apiKeyId === keyId;
}
