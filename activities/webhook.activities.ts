// Activities of webhook delivery: thin wrappers over src/webhooks. Sending is one attempt with no Temporal retry
// (the delivery workflow owns the schedule); writing the message and the log are idempotent and retried.
import type { Config } from '../src/config.ts';
import type { PrismaClient } from '../src/db/prisma.ts';
import { type AttemptRecord, recordAttempt } from '../src/webhooks/delivery-log.ts';
import { type CreatedMessage, createWebhookMessage, type WebhookEventInput } from '../src/webhooks/messages.ts';
import { webhookSecretOf } from '../src/webhooks/secrets.ts';
import { type AttemptResult, sendWebhook } from '../src/webhooks/send.ts';

export interface WebhookActivityDeps {
  prisma: PrismaClient;
  config: Config;
}

export function createWebhookActivities(deps: WebhookActivityDeps) {
  return {
    /** The message and where it goes; deliveries run on their own task queue. */
    async createWebhookMessage(input: WebhookEventInput): Promise<CreatedMessage & { taskQueue: string }> {
      return { ...(await createWebhookMessage(deps.prisma, input)), taskQueue: deps.config.TEMPORAL_WEBHOOK_TASK_QUEUE };
    },

    /** One attempt, signed with the account's secret as it is now (a rotated secret signs the next attempt). */
    async sendWebhook(input: { messageId: string; url: string }): Promise<AttemptResult> {
      const message = await deps.prisma.webhookMessage.findUniqueOrThrow({ where: { id: input.messageId } });
      const secret = message.accountId ? await webhookSecretOf(deps.prisma, message.accountId) : null;
      if (!secret) return { outcome: 'refused', statusCode: null, error: 'the account no longer exists', durationMs: null, retryAfterMs: null };
      return sendWebhook({ url: input.url, messageId: message.id, body: message.body, secret, allowPrivate: deps.config.ALLOW_PRIVATE_WEBHOOK_URLS });
    },

    async recordWebhookAttempt(record: AttemptRecord): Promise<void> {
      await recordAttempt(deps.prisma, record);
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
