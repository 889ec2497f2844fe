// One message to one target URL (workflow id `webhook:<message id>:<url hash>`), for at least 24 hours: an
// attempt now, then after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (±10 % jitter, so receivers that failed
// together are not retried together), later when the receiver's Retry-After asks for more. A 2xx ends it, so do
// 410 and a refused URL. Each attempt is one activity without Temporal retries (this loop is the schedule), then
// one idempotent write to the delivery log.
import { ActivityFailure, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { WebhookActivities } from '../../activities/webhook.activities.ts';
import type { AttemptResult } from '../../src/webhooks/send.ts';
import type { WebhookDeliveryInput, WebhookDeliveryResult } from '../contracts/webhook-delivery.types.ts';

const second = 1_000;
const minute = 60 * second;
const hour = 60 * minute;
/** Delay before each attempt; their sum (27.6 h, 24.8 h at the jitter's low end) is the 24-hour promise. */
export const deliverySchedule = [
  0,
  5 * second,
  5 * minute,
  30 * minute,
  2 * hour,
  5 * hour,
  10 * hour,
  10 * hour,
] as const;
/** A receiver's Retry-After stretches a delay up to this, never further: a hostile header cannot park a message for ever. */
export const maxRetryAfterMs = 10 * hour;

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

/** An attempt whose activity itself failed (the worker died, it ran out of time) failed like a dead receiver. */
function lostAttempt(error: unknown): AttemptResult {
  const cause = error instanceof ActivityFailure && error.cause ? error.cause : error;
  return {
    outcome: 'failed',
    statusCode: null,
    error: `the attempt did not finish: ${(cause as Error).message}`,
    durationMs: null,
    retryAfterMs: null,
  };
}

/** The delay before attempt `index` (0-based), jittered by the workflow's deterministic random, stretched by Retry-After. */
function delayBefore(index: number, retryAfterMs: number | null): number {
  const jittered = Math.round((deliverySchedule[index] ?? 0) * (0.9 + 0.2 * Math.random()));
  return Math.max(jittered, Math.min(retryAfterMs ?? 0, maxRetryAfterMs));
}

export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const { workflowId, runId } = workflowInfo();
  const firstAttempt = input.firstAttempt ?? 1;
  // When the next attempt is due: fixed before the log is written, so the time it records is the time it keeps.
  let nextAttemptAt = 0;
  for (let index = 0; index < deliverySchedule.length; index++) {
    const wait = nextAttemptAt - Date.now();
    if (wait > 0) await sleep(wait);
    const result = await sendWebhook({ messageId: input.messageId, url: input.url }).catch(lostAttempt);
    const retry = result.outcome === 'failed' && index + 1 < deliverySchedule.length;
    nextAttemptAt = retry ? Date.now() + delayBefore(index + 1, result.retryAfterMs) : 0;
    await recordWebhookAttempt({
      workflowId,
      runId,
      messageId: input.messageId,
      url: input.url,
      attempt: firstAttempt + index,
      statusCode: result.statusCode,
      error: result.error,
      durationMs: result.durationMs,
      nextAttemptAt: retry ? new Date(nextAttemptAt).toISOString() : null,
    });
    if (!retry) return { outcome: result.outcome === 'failed' ? 'exhausted' : result.outcome, attempts: index + 1 };
  }
  throw new Error('unreachable: the last scheduled attempt always returns');
}
