// The notify step (DESIGN §4 step 5, §6) of any workflow that emits a webhook event: generations now, deposits
// later. One activity writes the message and starts the deliveries, which run as workflows of their own.
import { CancellationScope, log, proxyLocalActivities } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhook.activities.ts';
import type { WebhookEventInput } from '../src/webhooks/messages.ts';

// Idempotent database work and two workflow starts; an hour of retries outlasts any outage worth waiting for.
// A local activity: most tasks have no webhook, and a round trip through a task queue per task costs the
// generation workflow a quarter of its throughput on the embedded server (npm run bench).
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
