// One long poll per task per api process, shared by every caller waiting for that task to end (`Prefer: wait`, MCP
// waits, a cancel): a hundred waiters on one task hold one gRPC stream. A hundred streams get RESOURCE_EXHAUSTED from
// the server, which the client retries on timers its close does not clear (grpc-retry; a retry after the close throws).
import type { Client } from '@temporalio/client';

interface SharedWatch {
  /** true once the workflow has closed (or is not there to wait for); false when the shared poll ran out. */
  closed: Promise<boolean>;
  waiters: number;
  stop: AbortController;
}

/** How long one shared poll runs before its waiters (if any are still waiting) start the next. */
const watchMs = 120_000;
const watchesByClient = new WeakMap<Client, Map<string, SharedWatch>>();

function startWatch(client: Client, watches: Map<string, SharedWatch>, taskId: string): SharedWatch {
  const stop = new AbortController();
  const until = Date.now() + watchMs;
  const closed = client
    .withDeadline(until, () => client.withAbortSignal(stop.signal, () => client.workflow.getHandle(taskId).result()))
    // A failed, cancelled or missing workflow has closed as far as a waiter goes; its own end is not a close.
    .then(
      () => true,
      () => !stop.signal.aborted && Date.now() < until,
    );
  const watch: SharedWatch = { closed, waiters: 0, stop };
  watches.set(taskId, watch);
  void closed.then(() => {
    if (watches.get(taskId) === watch) watches.delete(taskId);
  });
  return watch;
}

/** Joins (or starts) the task's shared watch; `leave` once done waiting: the last to leave stops the poll. */
export function watchClosed(client: Client, taskId: string): { closed: Promise<boolean>; leave(): void } {
  let watches = watchesByClient.get(client);
  if (!watches) watchesByClient.set(client, (watches = new Map()));
  const watch = watches.get(taskId) ?? startWatch(client, watches, taskId);
  watch.waiters += 1;
  let left = false;
  return {
    closed: watch.closed,
    leave() {
      if (left) return;
      left = true;
      watch.waiters -= 1;
      if (watch.waiters > 0) return;
      watch.stop.abort();
      if (watches.get(taskId) === watch) watches.delete(taskId);
    },
  };
}
