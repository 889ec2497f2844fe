// Each process of a running cluster, by name, with a way to SIGKILL it and to start it again on the same data and
// ports: what the fault suite (chaos/ with --cluster) does to it, and what an operator's supervisor would.
import { killGroup } from '../src/infra/processes/supervised-process.ts';

export interface ClusterPart {
  /** `postgres`, `objects`, `temporal`, `temporal-ui`, `worker-<n>`, `api-<n>`, `caddy`. */
  name: string;
  /** The process (group leader) running now. */
  pid(): number;
  /** kill -9 of its process group; resolves once the leader is gone. */
  kill(): Promise<void>;
  /** Starts it again as the cluster first did: the same data directory, ports and environment. */
  start(): Promise<void>;
}

/** A started piece and the process it runs. */
export interface Restartable<T> {
  current(): T;
  part: ClusterPart;
}

/** Starts a piece with `start`, and keeps doing so on each part.start(); `started` sees every new one. */
export async function restartable<T>(
  name: string,
  start: () => Promise<T>,
  pidOf: (piece: T) => number,
  started: (piece: T) => void = () => undefined,
): Promise<Restartable<T>> {
  let piece = await start();
  started(piece);
  return {
    current: () => piece,
    part: {
      name,
      pid: () => pidOf(piece),
      kill: () => killGroup(pidOf(piece)),
      async start() {
        piece = await start();
        started(piece);
      },
    },
  };
}

/**
 * Runs every start at once and waits for all of them, so each one that started is in `started` (and stoppable) even
 * when another failed; then throws the first failure.
 */
export async function startAll<T>(starts: (() => Promise<T>)[], started: T[]): Promise<void> {
  const outcomes = await Promise.allSettled(
    starts.map(async (start) => {
      const value = await start();
      started.push(value);
      return value;
    }),
  );
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
}
