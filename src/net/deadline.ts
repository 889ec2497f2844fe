// A time limit as an AbortSignal, on a timer of our own. On Node 20, an AbortSignal.timeout() held only by
// AbortSignal.any() can be garbage-collected before it fires, and the wait it bounded then runs on unbounded.
export interface Deadline {
  /** Aborts (a TimeoutError, as AbortSignal.timeout's) when the time is up, or with any of the other signals. */
  signal: AbortSignal;
  /** Whether the time ran out (not another signal). */
  expired: () => boolean;
  /** Stops the timer: call it once the bounded work has ended. */
  clear: () => void;
}

export function deadline(ms: number, ...others: (AbortSignal | undefined)[]): Deadline {
  const timeUp = new AbortController();
  const timer = setTimeout(() => timeUp.abort(new DOMException('The operation timed out.', 'TimeoutError')), ms);
  const signals = others.filter((signal): signal is AbortSignal => signal !== undefined);
  return {
    signal: signals.length > 0 ? AbortSignal.any([timeUp.signal, ...signals]) : timeUp.signal,
    expired: () => timeUp.signal.aborted,
    clear: () => clearTimeout(timer),
  };
}

/** Runs `step` within `ms` (and the other signals), the timer stopped once it ends. */
export async function withDeadline<T>(
  ms: number,
  others: (AbortSignal | undefined)[],
  step: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const limit = deadline(ms, ...others);
  try {
    return await step(limit.signal);
  } finally {
    limit.clear();
  }
}

/**
 * `step`'s answer, or null when it fails or has not answered within `ms`: for a lookup that may be skipped (a size,
 * a thumbnail, a confirmation count) through a client that takes no signal. The step itself is not stopped.
 */
export async function answerWithin<T>(ms: number, step: () => Promise<T>): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeUp = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)));
  try {
    return await Promise.race([step().catch(() => null), timeUp]);
  } finally {
    clearTimeout(timer);
  }
}
