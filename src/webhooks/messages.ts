// A webhook message: one event for one account, written once with the exact body every attempt sends, and the
// targets it goes to. Ids derive from what the event is about, so a retried step finds the same message.
import { createHash } from 'node:crypto';
import type { PrismaClient } from '../db/prisma.ts';
import { derivedId } from '../domain/ids.ts';
import type { GenerationRequest } from '../domain/generation-request.ts';
import type { WebhookEventFilter } from '../domain/values.ts';
import { webhookSecretOf } from './secrets.ts';

export const webhookEvents = [
  'generation.completed',
  'generation.failed',
  'deposit.credited',
  // A key's budget window reached 80 or 100 % of its budget (src/accounts/key-budget-alerts.ts).
  'key.budget_threshold',
] as const;
export type WebhookEvent = (typeof webhookEvents)[number];

export interface WebhookEventInput {
  event: WebhookEvent;
  /** What the event is about (a task id, a deposit id): one message per subject and event. */
  subject: string;
  accountId: string;
  /** A generation's task: its own `webhook_url` is a target beside the account's webhook. */
  taskId?: string;
  /** The task's own webhook as its caller just wrote the row (not read again); read by `taskId` without it. */
  taskWebhook?: TaskWebhook;
  /** The event's `data`: for generations, the task exactly as GET /generations/{id} answers it. */
  data: unknown;
}

export interface WebhookTarget {
  url: string;
  workflowId: string;
}

export interface CreatedMessage {
  messageId: string;
  targets: WebhookTarget[];
}

/** The Standard Webhooks `webhook-id`: the same for every attempt and every target of one event. */
export const webhookMessageId = (subject: string, event: WebhookEvent) => derivedId('msg', `${subject}:${event}`);

/** One delivery workflow per message and target URL; the hash keeps long URLs out of the id. */
export const deliveryWorkflowId = (messageId: string, url: string) =>
  `webhook:${messageId}:${createHash('sha256').update(url).digest('hex').slice(0, 16)}`;

/** Whether a task's `webhook_events` let its own webhook receive the event (no filter: every event). */
function taskWebhookWants(request: unknown, event: WebhookEvent | undefined): boolean {
  const filter = (request as GenerationRequest | null)?.webhook_events;
  if (!filter || event === undefined) return true;
  const asFilter: Record<WebhookEvent, WebhookEventFilter | null> = {
    'generation.completed': 'completed',
    'generation.failed': 'completed',
    'deposit.credited': null,
    'key.budget_threshold': null,
  };
  const wanted = asFilter[event];
  return wanted !== null && filter.includes(wanted);
}

/** Whether the account's webhook takes the event: it names it, or names none (every event). */
const accountWebhookWants = (events: string[], event: WebhookEvent | undefined) =>
  events.length === 0 || event === undefined || events.includes(event);

/** A task's own webhook: its URL, and its request (whose `webhook_events` filter what it receives). */
export type TaskWebhook = { webhookUrl: string | null; request: unknown };

/**
 * The task's own webhook (where its `webhook_events` take `event`), then the account's (where its events do), as
 * they are now; a URL named twice (in any spelling: case of the host, a default port) is sent to once.
 */
export async function targetUrls(
  prisma: PrismaClient,
  input: { taskId?: string | null; taskWebhook?: TaskWebhook; accountId: string | null; event?: WebhookEvent },
): Promise<string[]> {
  const [task, account] = await Promise.all([
    input.taskWebhook ??
      (input.taskId
        ? prisma.task.findUnique({ where: { id: input.taskId }, select: { webhookUrl: true, request: true } })
        : null),
    input.accountId
      ? prisma.account.findUnique({ where: { id: input.accountId }, select: { webhookUrl: true, webhookEvents: true } })
      : null,
  ]);
  const taskUrl = task && taskWebhookWants(task.request, input.event) ? task.webhookUrl : null;
  const accountUrl = account && accountWebhookWants(account.webhookEvents, input.event) ? account.webhookUrl : null;
  const urls = [taskUrl, accountUrl].filter((url): url is string => Boolean(url));
  return [...new Set(urls.map((url) => new URL(url).href))];
}

/** Writes the message (once: a repeat finds it) when it has somewhere to go; returns its targets. */
export async function createWebhookMessage(prisma: PrismaClient, input: WebhookEventInput): Promise<CreatedMessage> {
  const messageId = webhookMessageId(input.subject, input.event);
  const urls = await targetUrls(prisma, input);
  if (urls.length > 0) {
    await prisma.webhookMessage.createMany({
      data: [
        {
          id: messageId,
          accountId: input.accountId,
          taskId: input.taskId ?? null,
          event: input.event,
          body: JSON.stringify({ event: input.event, data: input.data }),
        },
      ],
      skipDuplicates: true,
    });
  }
  return { messageId, targets: urls.map((url) => ({ url, workflowId: deliveryWorkflowId(messageId, url) })) };
}

/** A written message as an attempt sends it: its exact body, signed with its account's secret as it is now. */
export interface MessageToSend {
  body: string;
  /** Null when the account no longer exists. */
  secret: string | null;
}

/** The message and its account's secret in one read; an account with no secret yet gets one (its first delivery). */
export async function messageToSend(prisma: PrismaClient, messageId: string): Promise<MessageToSend> {
  const [found] = await prisma.$queryRaw<{ body: string; account_id: string | null; secret: string | null }[]>`
    SELECT m.body, m.account_id, a.webhook_secret AS secret
    FROM webhook_messages m LEFT JOIN accounts a ON a.id = m.account_id
    WHERE m.id = ${messageId}`;
  if (!found) throw new Error(`webhook message ${messageId} does not exist`);
  const secret = found.secret ?? (found.account_id ? await webhookSecretOf(prisma, found.account_id) : null);
  return { body: found.body, secret };
}
