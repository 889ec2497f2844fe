// The generation workflow's activity option presets, by latency class. Each bound says how long a step may keep the
// task (and a caller) waiting before the workflow gives up on it.
import {
  ActivityCancellationType,
  type ActivityOptions,
  type LocalActivityOptions,
  proxyActivities,
} from '@temporalio/workflow';
import type { GenerationActivities } from '../../activities/generation.activities.ts';
import type { GenerationInput } from '../contracts/generation.types.ts';

// Database steps take milliseconds; a short timeout hands them to another worker soon after one dies. An hour of
// retries outlasts any outage worth waiting for; past it the workflow fails rather than loop.
export const fast = {
  startToCloseTimeout: '10 seconds',
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
} satisfies ActivityOptions;

// The refund outlasts a longer outage: a day, then it is an operator's.
export const compensation = { ...fast, scheduleToCloseTimeout: '1 day' } satisfies ActivityOptions;

// Admission keeps a caller waiting: 4 attempts of at most 5 s (< 30 s with backoff), then the POST answers. Bounded
// by a count: the SDK drops a local activity's schedule-to-close that expires between two local retries.
export const admit = {
  startToCloseTimeout: '5 seconds',
  scheduleToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '4 seconds', maximumAttempts: 4 },
} satisfies LocalActivityOptions;

// The model's timeout bounds the call's running time, retries included (each attempt's start-to-close, carried across
// attempts by activities/model-time.ts); the wait for a slot is bounded apart. Heartbeats reveal a dead worker sooner.
export const provider = {
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
  // A cancel waits for the call to stop: a job it submitted meanwhile comes back, and is cancelled upstream.
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
} satisfies ActivityOptions;

// Settling an x402 payment waits for a transaction; its attempts last until the authorization expires (set per run).
export const settlement = {
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute', nonRetryableErrorTypes: ['PaymentNotSettled'] },
} satisfies ActivityOptions;

// Database steps as local activities: no task-queue round trip each. Bounded by attempts (see admit): with the 30 s
// ceiling, about an hour of retries, as `fast`.
export const local = {
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 120 },
} satisfies LocalActivityOptions;

/**
 * The settlement of an x402 payment, attempted until its authorization has expired (and a little after, to see it
 * expire unspent): after that it can never move, so the task may fail without taking the payer's money.
 */
export function settlementActivities(input: GenerationInput) {
  const validBeforeMs = Number(input.payment?.validBefore ?? 0) * 1000;
  const untilExpiry = Math.min(validBeforeMs - Date.now() + 120_000, 86_400_000);
  return proxyActivities<GenerationActivities>({
    ...settlement,
    scheduleToCloseTimeout: Math.max(untilExpiry, 60_000),
  });
}
