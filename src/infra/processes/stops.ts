// How a start hands back what it started: a list of stops, run last-first so each part stops before what it needs.
import type { Logger } from '../logger.ts';

/** One part's stop, named for the log line that says how long it took. */
export interface Stop {
  name: string;
  stop: () => Promise<unknown>;
}

export async function stopAll(stops: Stop[], logger: Logger): Promise<void> {
  for (const { name, stop } of stops.reverse()) {
    const started = Date.now();
    await stop().catch((error: unknown) => logger.warn({ err: error, part: name }, 'error while stopping'));
    logger.info({ part: name, ms: Date.now() - started }, 'stopped');
  }
}

/** One part of a start (`npm start`'s, the cluster's), declared: what it is, whether it runs, how it starts. */
export interface Part<Context> {
  name: string;
  /** Whether it runs with this context (default: always). */
  runs?: (context: Context) => boolean;
  /**
   * Starts it and waits until it is ready, adding to `context` what later parts need; returns how it stops (a
   * function, stopped under the part's name, or stops of its own), or nothing when there is nothing to stop.
   */
  start: (context: Context) => Promise<Stop['stop'] | Stop[] | void>;
}

/** Starts `parts` in order, pushing each one's stop onto `stops` as soon as it is up (so stopAll stops them last-first). */
export async function startParts<Context>(parts: Part<Context>[], context: Context, stops: Stop[]): Promise<void> {
  for (const part of parts) {
    if (part.runs && !part.runs(context)) continue;
    const stop = await part.start(context);
    if (typeof stop === 'function') stops.push({ name: part.name, stop });
    else if (stop) stops.push(...stop);
  }
}
