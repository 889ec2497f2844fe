// The model's timeout holds across the attempts of a provider call: each attempt records in its heartbeats how long
// the call has run so far, and a retry (after a transient error or a dead worker) gets only what is left, so a model
// that hangs is never run again for a whole timeout. The wait for a provider slot is not counted: the clock runs
// only while an attempt runs. The budget is the call's start-to-close timeout, which the workflow sets to it.
import { ApplicationFailure, Context } from '@temporalio/activity';

interface ModelTime {
  ranMs: number;
}

const modelTimedOut = () =>
  ApplicationFailure.nonRetryable('the model did not finish within its timeout', 'ModelTimeout');

/** Runs `step` within what is left of the model's time; its signal aborts on a cancel or when the time is up. */
export async function withinModelTime<T>(step: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const activity = Context.current();
  const ranBefore = (activity.info.heartbeatDetails as ModelTime | undefined)?.ranMs ?? 0;
  const remainingMs = activity.info.startToCloseTimeoutMs - ranBefore;
  if (remainingMs <= 0) throw modelTimedOut();
  const started = Date.now();
  const ran = (): ModelTime => ({ ranMs: ranBefore + Date.now() - started });
  const timeUp = new AbortController();
  const timer = setTimeout(() => timeUp.abort(), remainingMs);
  // Heartbeats also let Temporal notice a dead worker within the heartbeat timeout, and bring a cancel to the call.
  const heartbeat = setInterval(() => activity.heartbeat(ran()), 1_000);
  // A step that does not heed its signal is not waited for past the time.
  const expired = new Promise<never>((_resolve, reject) =>
    timeUp.signal.addEventListener('abort', () => reject(modelTimedOut())),
  );
  try {
    return await Promise.race([step(AbortSignal.any([activity.cancellationSignal, timeUp.signal])), expired]);
  } catch (error) {
    // The last count travels with the attempt's failure, for the next attempt (a success needs none: no round trip).
    activity.heartbeat(ran());
    throw timeUp.signal.aborted ? modelTimedOut() : error;
  } finally {
    clearTimeout(timer);
    clearInterval(heartbeat);
  }
}
