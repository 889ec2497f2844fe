// How the benchmark loads the service. An open loop starts each request on its schedule whether or not earlier
// ones have answered, so queueing shows in the latencies (a closed loop hides it); a closed loop keeps a fixed
// number in flight and measures throughput.

export interface Measured {
  /** Latency of each answered request, ms. */
  latencies: number[];
  /** Requests that threw (a wrong status counts). */
  failures: number;
  /** From the first start to the last answer. */
  seconds: number;
  /** First error seen, to print. */
  firstError?: string;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

async function timed(operation: () => Promise<void>, into: Measured): Promise<void> {
  const started = performance.now();
  try {
    await operation();
    into.latencies.push(performance.now() - started);
  } catch (error) {
    into.failures++;
    into.firstError ??= (error as Error).message;
  }
}

/** `operation(i)` started `perSecond` times a second for `seconds`, each on its own schedule. */
export async function openLoop(
  perSecond: number,
  seconds: number,
  operation: (i: number) => Promise<void>,
): Promise<Measured> {
  const measured: Measured = { latencies: [], failures: 0, seconds: 0 };
  const count = Math.round(perSecond * seconds);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      await sleep(started + (i * 1000) / perSecond - performance.now());
      await timed(() => operation(i), measured);
    }),
  );
  measured.seconds = (performance.now() - started) / 1000;
  return measured;
}

/** `operation(i)` with `inFlight` running at once, `total` times or for `forSeconds`. */
export async function closedLoop(
  inFlight: number,
  limit: { total: number } | { forSeconds: number },
  operation: (i: number) => Promise<void>,
): Promise<Measured> {
  const measured: Measured = { latencies: [], failures: 0, seconds: 0 };
  const started = performance.now();
  let next = 0;
  const more = () => ('total' in limit ? next < limit.total : performance.now() - started < limit.forSeconds * 1000);
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (more()) {
        const i = next++;
        await timed(() => operation(i), measured);
      }
    }),
  );
  measured.seconds = (performance.now() - started) / 1000;
  return measured;
}

/** Answers per second over the whole run: below the offered rate when the service fell behind. */
export const achievedRate = (measured: Measured) => measured.latencies.length / measured.seconds;
