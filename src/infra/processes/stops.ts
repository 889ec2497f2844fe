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
