// The rest of one message's schedule to one target (workflow id `webhook:<message id>:<url hash>`), for at least 24
// hours: after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (±10 % jitter, so receivers that failed together are not
// retried together), later when the receiver's Retry-After asks for more. The emitter made the first attempt and
// handed a failed one over (webhook-notify.ts); an operator's redelivery starts the whole schedule again. A 2xx ends
// it, so do 410 and a refused URL. Each attempt is one activity without Temporal retries (this loop is the schedule),
// then one idempotent write to the delivery log.
import { proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { WebhookActivities } from '../../activities/webhook.activities.ts';
import type { WebhookDeliveryInput, WebhookDeliveryResult } from '../contracts/webhook-delivery.types.ts';
import { attemptDelivery, deliverySchedule } from './delivery-attempt.ts';

// 15 s of request plus reading the message and the secret; one try, since a second would be an unscheduled attempt.
const { sendWebhook } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 1 },
});
const { recordWebhookAttempt } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '10 seconds',
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const { workflowId, runId } = workflowInfo();
  const firstAttempt = input.firstAttempt ?? 1;
  const from = input.scheduleFrom ?? 0;
  let nextAttemptAt = input.nextAttemptAt ? Date.parse(input.nextAttemptAt) : 0;
  for (let index = from; index < deliverySchedule.length; index++) {
    const wait = nextAttemptAt - Date.now();
    if (wait > 0) await sleep(wait);
    const attempt = firstAttempt + index - from;
    const done = await attemptDelivery(
      { sendWebhook, recordWebhookAttempt },
      { messageId: input.messageId, url: input.url, index, attempt, workflowId, runId },
    );
    if (done.nextAttemptAt === null)
      return { outcome: done.outcome === 'failed' ? 'exhausted' : done.outcome, attempts: index - from + 1 };
    nextAttemptAt = done.nextAttemptAt;
  }
  throw new Error('unreachable: the last scheduled attempt always returns');
}
