// Activities of webhooks: thin wrappers over src/webhooks. notifyWebhooks is the emitters' notify step; sending is
// one attempt with no Temporal retry (the delivery workflow owns the schedule); the writes are idempotent.
import { Context } from '@temporalio/activity';
import type { Config } from '../src/config/config.ts';
import type { PrismaClient } from '../src/db/prisma.ts';
import { type AttemptRecord, recordAttempt } from '../src/webhooks/delivery-log.ts';
import type { CreatedMessage, WebhookEventInput } from '../src/webhooks/messages.ts';
import { webhookSecretOf } from '../src/webhooks/secrets.ts';
import { type AttemptResult, sendWebhook } from '../src/webhooks/send.ts';
import { classifyFailures } from './failures.ts';
import type { WorkflowStarter } from './workflow-starter.ts';

export interface WebhookActivityDeps {
  prisma: PrismaClient;
  config: Pick<Config, 'webhooks'>;
  starter: Pick<WorkflowStarter, 'notifyWebhook'>;
}

export function createWebhookActivities(deps: WebhookActivityDeps) {
  return classifyFailures({
    /**
     * Writes the event's message and starts one delivery workflow per target on the webhooks task queue. They are
     * not children of the emitter: a delivery outlives it by a day and must never reach back into it. A retry of
     * this activity finds the message and the deliveries it started.
     */
    async notifyWebhooks(input: WebhookEventInput): Promise<CreatedMessage> {
      return deps.starter.notifyWebhook(Context.current().client, input);
    },

    /** One attempt, signed with the account's secret as it is now (a rotated secret signs the next attempt). */
    async sendWebhook(input: { messageId: string; url: string }): Promise<AttemptResult> {
      const message = await deps.prisma.webhookMessage.findUniqueOrThrow({ where: { id: input.messageId } });
      const secret = message.accountId ? await webhookSecretOf(deps.prisma, message.accountId) : null;
      if (!secret)
        return {
          outcome: 'refused',
          statusCode: null,
          error: 'the account no longer exists',
          durationMs: null,
          retryAfterMs: null,
        };
      return sendWebhook({
        url: input.url,
        messageId: message.id,
        body: message.body,
        secret,
        allowPrivate: deps.config.webhooks.allowPrivateUrls,
      });
    },

    async recordWebhookAttempt(record: AttemptRecord): Promise<void> {
      await recordAttempt(deps.prisma, record);
    },
  });
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
