// Activities of webhooks: thin wrappers over src/webhooks, for the emitters' notify step and the delivery workflow.
// Sending is one attempt with no Temporal retry (the notify step and the delivery workflow own the schedule); the
// writes are idempotent.
import { Context } from '@temporalio/activity';
import type { Config } from '../src/config/config.ts';
import type { PrismaClient } from '../src/db/prisma.ts';
import { type AttemptRecord, recordAttempt } from '../src/webhooks/delivery-log.ts';
import {
  type CreatedMessage,
  createWebhookMessage,
  messageToSend,
  type WebhookEventInput,
} from '../src/webhooks/messages.ts';
import { type AttemptResult, sendWebhook } from '../src/webhooks/send.ts';
import { classifyFailures } from './failures.ts';
import type { WebhookDeliveryInput } from '../workflows/contracts/webhook-delivery.types.ts';
import type { WorkflowStarter } from './workflow-starter.ts';

export interface WebhookActivityDeps {
  prisma: PrismaClient;
  config: Pick<Config, 'webhooks'>;
  starter: Pick<WorkflowStarter, 'handOverWebhook'>;
}

export function createWebhookActivities(deps: WebhookActivityDeps) {
  return classifyFailures({
    /** Writes the event's message (once: a retry finds it) and answers its targets, for the emitter to deliver. */
    async prepareWebhookMessage(input: WebhookEventInput): Promise<CreatedMessage> {
      return createWebhookMessage(deps.prisma, input);
    },

    /**
     * Starts the delivery workflow for the rest of a target's schedule after a failed first attempt (once: a retry
     * finds it). Not a child of the emitter: it outlives it by a day and must never reach back into it.
     */
    async handOverWebhook(input: WebhookDeliveryInput): Promise<void> {
      await deps.starter.handOverWebhook(Context.current().client, input);
    },

    /** One attempt, signed with the account's secret as it is now (a rotated secret signs the next attempt). */
    async sendWebhook(input: { messageId: string; url: string }): Promise<AttemptResult> {
      const { body, secret } = await messageToSend(deps.prisma, input.messageId);
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
        messageId: input.messageId,
        body,
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
