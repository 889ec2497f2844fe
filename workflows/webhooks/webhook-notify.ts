// The notify step, shared by every workflow that emits a webhook event. Deliveries run as workflows of their own,
// so an emitter closes at once and a day of retries never reaches back into it.
import { CancellationScope, log, proxyLocalActivities } from '@temporalio/workflow';
import type { WebhookActivities } from '../../activities/webhook.activities.ts';
import type { WebhookEventInput } from '../../src/webhooks/messages.ts';

// Idempotent database work and two workflow starts, retried for about an hour (counted: the SDK drops a local
// activity's schedule-to-close between retries). Local: most tasks have no webhook to pay a task-queue round trip for.
const { notifyWebhooks } = proxyLocalActivities<WebhookActivities>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', maximumAttempts: 60 },
});

/** Never throws, and runs even in a cancelled workflow (a cancelled task ends failed, and its caller is told so). */
export async function notify(input: WebhookEventInput): Promise<void> {
  try {
    await CancellationScope.nonCancellable(() => notifyWebhooks(input));
  } catch (error) {
    // A notification must not change what the emitter did.
    log.warn('webhook event not notified', {
      event: input.event,
      subject: input.subject,
      error: (error as Error).message,
    });
  }
}
