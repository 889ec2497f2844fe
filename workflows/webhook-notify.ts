// The notify step, shared by every workflow that emits a webhook event. Deliveries run as workflows of their own,
// so an emitter closes at once and a day of retries never reaches back into it.
import { CancellationScope, log, proxyLocalActivities } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhook.activities.ts';
import type { WebhookEventInput } from '../src/webhooks/messages.ts';

// Idempotent database work and two workflow starts; an hour of retries outlasts any outage worth waiting for.
// A local activity: most tasks have no webhook, and a task-queue round trip per task would cost every one of them.
const { notifyWebhooks } = proxyLocalActivities<WebhookActivities>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
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
