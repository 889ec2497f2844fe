// The delivery log: every attempt of every message to every target, as operators read it (genctl webhooks).
import type { PrismaClient } from '../db/prisma.ts';
import { Prisma, type WebhookDelivery, type WebhookMessage } from '../generated/prisma/client.ts';
import { metrics } from '../metrics/metrics.ts';
import { derivedId } from '../domain/ids.ts';

export interface AttemptRecord {
  /** The delivery workflow's run: with the attempt number, it makes the row's id, so a retried write adds nothing. */
  workflowId: string;
  runId: string;
  messageId: string;
  url: string;
  attempt: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number | null;
  /** ISO time of the next attempt; null when this was the last one. */
  nextAttemptAt: string | null;
}

/** Logs an attempt, its message's columns copied in the same statement (no read of the message first). */
export async function recordAttempt(prisma: PrismaClient, record: AttemptRecord): Promise<void> {
  const id = derivedId('whd', `${record.workflowId}\n${record.runId}\n${record.attempt}`);
  const nextAttemptAt = record.nextAttemptAt ? new Date(record.nextAttemptAt) : null;
  const written = await prisma.$queryRaw<{ event: string }[]>`
    INSERT INTO webhook_deliveries (id, message_id, account_id, task_id, event, url, attempt, status_code, error,
      duration_ms, next_attempt_at, created_at)
    SELECT ${id}, m.id, m.account_id, m.task_id, m.event, ${record.url}, ${record.attempt}::int,
      ${record.statusCode}::int, ${record.error}, ${record.durationMs}::int, ${nextAttemptAt}::timestamptz,
      ${new Date()}::timestamptz
    FROM webhook_messages m WHERE m.id = ${record.messageId}
    ON CONFLICT (id) DO NOTHING
    RETURNING event`;
  // Counted once per attempt: a retried write of the same attempt adds no row.
  const [row] = written;
  if (!row) return;
  const outcome = stateOf(record);
  metrics.webhookAttempts.inc({ event: row.event, outcome });
  if (outcome !== 'retrying') metrics.webhookDeliveries.inc({ event: row.event, outcome });
}

export type DeliveryState = 'delivered' | 'gone' | 'retrying' | 'failed';

export interface TargetSummary {
  url: string;
  state: DeliveryState;
  attempts: WebhookDelivery[];
}

export interface MessageSummary {
  message: WebhookMessage;
  targets: TargetSummary[];
}

function stateOf(last: Pick<WebhookDelivery, 'statusCode'> & { nextAttemptAt: unknown }): DeliveryState {
  if (last.statusCode !== null && last.statusCode >= 200 && last.statusCode < 300) return 'delivered';
  if (last.statusCode === 410) return 'gone';
  return last.nextAttemptAt ? 'retrying' : 'failed';
}

function summarise(message: WebhookMessage & { deliveries: WebhookDelivery[] }): MessageSummary {
  const byUrl = new Map<string, WebhookDelivery[]>();
  for (const delivery of message.deliveries) byUrl.set(delivery.url, [...(byUrl.get(delivery.url) ?? []), delivery]);
  const { deliveries: _, ...bare } = message;
  return {
    message: bare,
    targets: [...byUrl].map(([url, attempts]) => ({ url, state: stateOf(attempts.at(-1)!), attempts })),
  };
}

const attemptOrder = [{ attempt: 'asc' as const }, { createdAt: 'asc' as const }];

/** The newest messages first, each with its targets' attempts. */
export async function listMessages(
  prisma: PrismaClient,
  filter: { taskId?: string; accountId?: string; limit: number },
): Promise<MessageSummary[]> {
  const messages = await prisma.webhookMessage.findMany({
    where: { taskId: filter.taskId, accountId: filter.accountId },
    orderBy: { createdAt: 'desc' },
    take: filter.limit,
    include: { deliveries: { orderBy: attemptOrder } },
  });
  return messages.map(summarise);
}

export async function getMessage(prisma: PrismaClient, messageId: string): Promise<MessageSummary | null> {
  const message = await prisma.webhookMessage.findUnique({
    where: { id: messageId },
    include: { deliveries: { orderBy: attemptOrder } },
  });
  return message && summarise(message);
}

/** A page of an account's messages, newest first (created_at DESC, id DESC), after `after` when given. */
export async function pageOfMessages(
  prisma: PrismaClient,
  page: MessagePage & {
    /** A key with a policy: only the messages about the tasks that key created. */
    onlyKeyId?: string;
  },
): Promise<MessageSummary[]> {
  const after = page.after;
  const where =
    page.onlyKeyId === undefined
      ? {
          accountId: page.accountId,
          taskId: page.taskId,
          ...(after && {
            OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }],
          }),
        }
      : { id: { in: await messageIdsOfKey(prisma, page, page.onlyKeyId) } };
  const messages = await prisma.webhookMessage.findMany({
    where,
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: page.limit,
    include: { deliveries: { orderBy: attemptOrder } },
  });
  return messages.map(summarise);
}

interface MessagePage {
  accountId: string;
  taskId?: string;
  limit: number;
  after?: { createdAt: Date; id: string };
}

/** The ids of a page of the messages about `keyId`'s tasks: a message names its task but has no relation to it. */
async function messageIdsOfKey(prisma: PrismaClient, page: MessagePage, keyId: string): Promise<string[]> {
  const { after } = page;
  const conditions = [
    Prisma.sql`m.account_id = ${page.accountId}`,
    Prisma.sql`t.api_key_id = ${keyId}`,
    page.taskId && Prisma.sql`m.task_id = ${page.taskId}`,
    after &&
      Prisma.sql`(m.created_at < ${after.createdAt} OR (m.created_at = ${after.createdAt} AND m.id < ${after.id}))`,
  ].filter((condition) => condition instanceof Prisma.Sql);
  const rows = await prisma.$queryRaw<{ id: string }[]>`
    SELECT m.id FROM webhook_messages m JOIN tasks t ON t.id = m.task_id
    WHERE ${Prisma.join(conditions, ' AND ')}
    ORDER BY m.created_at DESC, m.id DESC LIMIT ${page.limit}`;
  return rows.map((row) => row.id);
}
