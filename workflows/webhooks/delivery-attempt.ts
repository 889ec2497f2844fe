// One scheduled attempt of a message to one target and its line in the delivery log: the emitters' first attempt
// (inline, in the emitting workflow) and the delivery workflow's later ones take the same steps.
import { ActivityFailure } from '@temporalio/workflow';
import type { WebhookActivities } from '../../activities/webhook.activities.ts';
import type { AttemptResult } from '../../src/webhooks/send.ts';

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

export type AttemptSteps = Pick<WebhookActivities, 'sendWebhook' | 'recordWebhookAttempt'>;

export interface ScheduledAttempt {
  messageId: string;
  url: string;
  /** Its place in deliverySchedule. */
  index: number;
  /** Its number in the delivery log (attempt numbers continue across redeliveries). */
  attempt: number;
  /** The delivery's id and the run that makes the attempt: with the number, the log row's id. */
  workflowId: string;
  runId: string;
}

export interface AttemptDone {
  outcome: AttemptResult['outcome'];
  /** When the next attempt is due (epoch ms); null when this one ended the delivery. */
  nextAttemptAt: number | null;
}

/** Sends once, then logs the attempt; the next one's time is fixed before the log is written, so it keeps it. */
export async function attemptDelivery(steps: AttemptSteps, scheduled: ScheduledAttempt): Promise<AttemptDone> {
  const { messageId, url, index } = scheduled;
  const result = await steps.sendWebhook({ messageId, url }).catch(lostAttempt);
  const retry = result.outcome === 'failed' && index + 1 < deliverySchedule.length;
  const nextAttemptAt = retry ? Date.now() + delayBefore(index + 1, result.retryAfterMs) : null;
  await steps.recordWebhookAttempt({
    workflowId: scheduled.workflowId,
    runId: scheduled.runId,
    messageId,
    url,
    attempt: scheduled.attempt,
    statusCode: result.statusCode,
    error: result.error,
    durationMs: result.durationMs,
    nextAttemptAt: nextAttemptAt === null ? null : new Date(nextAttemptAt).toISOString(),
  });
  return { outcome: result.outcome, nextAttemptAt };
}
