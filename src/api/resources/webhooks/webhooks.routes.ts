import { ownTasksOnly } from '../../../accounts/api-keys.ts';
import { type AccountWebhook, accountWebhook, setAccountWebhook } from '../../../accounts/accounts.ts';
import { decodePositionCursor, encodeHistoryCursor } from '../../../generations/history-cursor.ts';
import type { WebhookDelivery } from '../../../generated/prisma/client.ts';
import { type MessageSummary, pageOfMessages } from '../../../webhooks/delivery-log.ts';
import type { WebhookEvent } from '../../../webhooks/messages.ts';
import { redeliverMessage } from '../../../use-cases/webhooks/redelivery.ts';
import { defineEndpoint } from '../../endpoint.ts';
import { webhookSignature } from '../../webhook-signature.ts';
import {
  AccountWebhookSchema,
  DeliveryLogQuerySchema,
  DeliveryLogSchema,
  MessageIdParamsSchema,
  messageIdPattern,
  RedeliverySchema,
  SetAccountWebhookSchema,
} from './webhooks.schemas.ts';

const tags = ['Webhooks'];
const iso = (date: Date | null) => date?.toISOString() ?? null;

const attemptBody = (row: WebhookDelivery) => ({
  attempt: row.attempt,
  at: row.createdAt.toISOString(),
  status_code: row.statusCode,
  error: row.error,
  duration_ms: row.durationMs,
  next_attempt_at: iso(row.nextAttemptAt),
});

const messageBody = ({ message, targets }: MessageSummary) => ({
  id: message.id,
  event: message.event,
  task_id: message.taskId,
  created_at: message.createdAt.toISOString(),
  targets: targets.map((target) => ({
    url: target.url,
    state: target.state,
    attempts: target.attempts.map(attemptBody),
  })),
});

const webhookBody = ({ webhookUrl, webhookEvents }: AccountWebhook) => ({
  webhook_url: webhookUrl,
  events: webhookEvents as WebhookEvent[],
  ...webhookSignature,
});

export const webhookEndpoints = [
  defineEndpoint({
    method: 'get',
    path: '/webhooks',
    operationId: 'getAccountWebhook',
    summary: "Your account's webhook",
    description:
      "Gateway extension. Where the account's events go (`webhook_url`, null for none; a task's own `webhook_url` gets its events as well), which of them (`events`, empty for every event), and how deliveries are signed (Standard Webhooks). The secret itself is at GET /account/webhook-secret. Any key with the `read` scope, of any kind of account.",
    tags,
    auth: 'any',
    scope: 'read',
    success: { status: 200, description: 'The webhook and how it is signed', schema: AccountWebhookSchema },
    handle: async ({ principal, ctx }) => ({
      body: webhookBody(await accountWebhook(ctx.prisma, principal.account.id)),
    }),
  }),
  defineEndpoint({
    method: 'put',
    path: '/webhooks',
    operationId: 'setAccountWebhook',
    // Where every task's events go: the account's to manage, as its keys are, and no sub-key's.
    scope: 'keys',
    accountWide: true,
    summary: "Set or remove your account's webhook",
    description:
      "Gateway extension. Sets (`webhook_url`) or removes (`null`) the account's webhook, for developers and agents alike, and the events it receives (`events`; absent or empty: every event). Unlike PATCH /agents/webhook, the signing secret is kept (made if the account had none), so receivers that verify with it keep working. Needs the `keys` scope and a key without a policy (a key with one: 403 `forbidden`).",
    tags,
    auth: 'any',
    request: { body: SetAccountWebhookSchema },
    success: { status: 200, description: 'The webhook as set', schema: AccountWebhookSchema },
    handle: async ({ body, principal, ctx }) => ({
      body: webhookBody(
        await setAccountWebhook(ctx.prisma, principal.account.id, {
          webhookUrl: body.webhook_url,
          webhookEvents: [...new Set(body.events)],
        }),
      ),
    }),
  }),
  defineEndpoint({
    method: 'get',
    path: '/webhooks/deliveries',
    operationId: 'listWebhookDeliveries',
    // Where the account's webhooks went and what they answered: read with the account's webhook settings.
    scope: 'keys',
    summary: 'Your webhook messages and every attempt to deliver them',
    description:
      "Gateway extension. The account's webhook messages, newest first, `limit` (1–100, default 20) a page, `next_cursor` for the next; `task_id` keeps one task's. Each message (its `id` is the `webhook-id` every attempt sends) lists its targets, each with its state and every attempt: the receiver's `status_code` (null: no answer, and `error` says why), `duration_ms`, and `next_attempt_at` while another is scheduled. A key with a policy sees only the messages about the tasks it created (not the account's other tasks, deposits or budget alerts). Needs the `keys` scope.",
    tags,
    auth: 'any',
    request: { query: DeliveryLogQuerySchema },
    success: { status: 200, description: 'A page of messages, newest first', schema: DeliveryLogSchema },
    handle: async ({ query, principal, ctx }) => {
      const after = query.cursor === undefined ? undefined : decodePositionCursor(query.cursor, messageIdPattern);
      const page = await pageOfMessages(ctx.prisma, {
        accountId: principal.account.id,
        taskId: query.task_id,
        onlyKeyId: ownTasksOnly(principal),
        limit: query.limit + 1,
        after,
      });
      const shown = page.slice(0, query.limit);
      const last = shown.at(-1)?.message;
      return {
        body: {
          messages: shown.map(messageBody),
          next_cursor: page.length > query.limit && last ? encodeHistoryCursor(last) : null,
        },
      };
    },
  }),
  defineEndpoint({
    method: 'post',
    path: '/webhooks/deliveries/{id}/redeliver',
    operationId: 'redeliverWebhook',
    scope: 'keys',
    summary: 'Send a webhook message again',
    description:
      "Gateway extension. Sends one of the account's messages again, the same `webhook-id` and body, on a fresh retry schedule, to each of its targets (a receiver that deduplicates by `webhook-id` ignores it). 202 with each target's `redelivery`: `started`, or `still_running` when its schedule is still going. 404 for a message that is not the account's (for a key with a policy: not about a task it created); 409 `conflict` when it has no target or every target is still being tried. Needs the `keys` scope.",
    tags,
    auth: 'any',
    request: { params: MessageIdParamsSchema },
    success: { status: 202, description: 'Sent again on a fresh schedule', schema: RedeliverySchema },
    errors: ['not_found', 'conflict'],
    handle: async ({ params, principal, ctx }) => {
      const deps = {
        prisma: ctx.prisma,
        temporal: async () => ctx.temporal.client,
        taskQueue: ctx.config.temporal.taskQueue,
      };
      const redelivery = await redeliverMessage(deps, params.id, {
        accountId: principal.account.id,
        onlyKeyId: ownTasksOnly(principal),
      });
      return {
        status: 202,
        body: {
          id: redelivery.messageId,
          targets: redelivery.targets.map((target) => ({
            url: target.url,
            redelivery: target.redelivery,
            first_attempt: target.firstAttempt,
          })),
        },
      };
    },
  }),
];
