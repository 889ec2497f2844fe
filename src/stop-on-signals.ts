// How `npm start` and `npm run cluster` end: on SIGINT, SIGTERM or SIGHUP (or a failed start) what was started is
// stopped in order, bounded by `limitMs` whatever the parts are doing, then the process exits.
import type { Logger } from 'pino';
import { type Stop, stopAll } from './infra/processes/stops.ts';

export interface Shutdown {
  /** Runs the start; a signal meanwhile waits for it, so what it started is stopped too. */
  starting<T>(start: Promise<T>): Promise<T>;
  /** Whether a stop has begun (a signal came during the start). */
  stopping(): boolean;
  stop(reason: string, exitCode: number): Promise<void>;
}

export function stopOnSignals(logger: Logger, stops: Stop[], limitMs: number, what = 'the service'): Shutdown {
  let started: Promise<unknown> | undefined;
  let stopping: Promise<void> | undefined;
  const stop = (reason: string, exitCode: number) => {
    stopping ??= (async () => {
      logger.info({ reason }, `stopping ${what}`);
      setTimeout(() => {
        logger.warn({ limitMs }, `${what} did not stop in time: exiting, what is left is killed`);
        process.exit(exitCode);
      }, limitMs).unref();
      await started?.catch(() => undefined);
      await stopAll(stops, logger);
      logger.info(`${what} stopped`);
      process.exit(exitCode);
    })();
    return stopping;
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stop(signal, 0));
  return {
    starting: (start) => ((started = start), start),
    stopping: () => stopping !== undefined,
    stop,
  };
}
