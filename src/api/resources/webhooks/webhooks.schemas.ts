import { decodePositionCursor } from '../../../generations/history-cursor.ts';
import { taskIdPattern } from '../../../domain/values.ts';
import { webhookEvents } from '../../../webhooks/messages.ts';
import { httpUrl, signatureAlgorithm, signatureHeader } from '../../schemas/common.schemas.ts';
import { z } from '../../schemas/zod.ts';

/** `msg_` and 22 base62 characters: a webhook message's id, its `webhook-id` header. */
export const messageIdPattern = /^msg_[0-9A-Za-z]{22}$/;

const eventsDescription =
  'The events the webhook receives (`generation.completed`, `generation.failed`, `deposit.credited`, ' +
  "`key.budget_threshold`); empty: every event, including ones added later. A task's own `webhook_url` is filtered " +
  'by its `webhook_events` instead.';

export const AccountWebhookSchema = z
  .object({
    webhook_url: httpUrl.nullable().openapi({ description: "Where the account's events go; null: none" }),
    events: z.array(z.enum(webhookEvents)).openapi({ description: eventsDescription }),
    signature_header: signatureHeader,
    signature_algorithm: signatureAlgorithm,
  })
  .openapi('AccountWebhook');

export const SetAccountWebhookSchema = z
  .strictObject({
    webhook_url: httpUrl
      .nullable()
      .openapi({ description: "Where the account's events go; null removes it. The signing secret is kept" }),
    events: z
      .array(z.enum(webhookEvents))
      .max(webhookEvents.length * 2)
      .default([])
      .openapi({ description: `${eventsDescription} Absent: every event.` }),
  })
  .openapi('SetAccountWebhook');

export const DeliveryLogQuerySchema = z.object({
  limit: z.coerce
    .number<string | number>()
    .int()
    .min(1)
    .max(100)
    .default(20)
    .openapi({ param: { name: 'limit', in: 'query' }, description: 'Messages per page, 1 to 100', example: 20 }),
  cursor: z
    .string()
    .max(200)
    .refine(
      (cursor) => decodePositionCursor(cursor, messageIdPattern) !== undefined,
      'must be a next_cursor this endpoint answered',
    )
    .optional()
    .openapi({ param: { name: 'cursor', in: 'query' }, description: "The previous page's `next_cursor` (opaque)" }),
  task_id: z
    .string()
    .regex(taskIdPattern, 'must be a task id (gen_…)')
    .optional()
    .openapi({ param: { name: 'task_id', in: 'query' }, description: "Only this task's messages" }),
});

const AttemptSchema = z
  .object({
    attempt: z.number().int(),
    at: z.string(),
    status_code: z.number().int().nullable().openapi({ description: "The receiver's HTTP status; null: no answer" }),
    error: z.string().nullable().openapi({ description: 'Why there was no answer (timeout, refused, …)' }),
    duration_ms: z.number().int().nullable(),
    next_attempt_at: z.string().nullable().openapi({ description: 'When it is tried again; null: no more attempts' }),
  })
  .openapi('WebhookAttempt');

const DeliveryStateSchema = z.enum(['delivered', 'gone', 'retrying', 'failed']).openapi({
  description: '`delivered`: a 2xx; `gone`: 410, not tried again; `retrying`: another attempt is scheduled; `failed`',
});

export const WebhookMessageSchema = z
  .object({
    id: z.string().openapi({ description: 'The message id, its `webhook-id` header (the same on every attempt)' }),
    event: z.string(),
    task_id: z.string().nullable(),
    created_at: z.string(),
    targets: z.array(z.object({ url: z.string(), state: DeliveryStateSchema, attempts: z.array(AttemptSchema) })),
  })
  .openapi('WebhookMessage');

export const DeliveryLogSchema = z
  .object({
    messages: z.array(WebhookMessageSchema),
    next_cursor: z.string().nullable().openapi({ description: 'Pass as `cursor` for the next page; null: the last' }),
  })
  .openapi('WebhookDeliveryLog');

export const MessageIdParamsSchema = z.object({
  id: z
    .string()
    .regex(messageIdPattern, 'must be a webhook message id (msg_…)')
    .openapi({ param: { name: 'id', in: 'path' }, example: 'msg_3kXq9V2mPz8LwQ4rT7yN1a' }),
});

export const RedeliverySchema = z
  .object({
    id: z.string(),
    targets: z.array(
      z.object({
        url: z.string(),
        redelivery: z.enum(['started', 'still_running']).openapi({
          description: '`started`: sent again on a fresh schedule; `still_running`: its schedule was still going',
        }),
        first_attempt: z.number().int(),
      }),
    ),
  })
  .openapi('WebhookRedelivery');
