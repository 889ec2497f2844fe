// Progress of a running task, as its provider reports it, kept on the task's row so that reads (which answer from
// the row) show it. Best effort: a report that cannot be written is dropped, and writes are throttled per task.
import type { PrismaClient } from '../db/prisma.ts';
import type { TaskProgress } from '../domain/values.ts';

/** At most one write per task per interval: engines may report every frame. */
export const progressWriteIntervalMs = 1_000;
/** A task that ends sooner never writes its progress: most local work takes less (a write and its event each). */
export const firstProgressWriteAfterMs = 250;

/** Writes the report on the task's row while it is processing (a task that ended keeps what it ended with). */
export async function recordProgress(prisma: PrismaClient, taskId: string, progress: TaskProgress): Promise<void> {
  await prisma.task
    .updateMany({ where: { id: taskId, status: 'processing' }, data: { progress: { ...progress } } })
    .catch(() => undefined);
}

export interface ProgressReporter {
  report(progress: TaskProgress): void;
  /** Stops: a report still pending is dropped (the task is past it), a write under way is awaited. */
  close(): Promise<void>;
}

/**
 * A reporter for one task: the first report is written `firstAfterMs` after the reporter was made (the latest by
 * then), later ones at most once per interval (the latest wins); an unchanged report is not written again.
 */
export function throttledProgress(
  prisma: PrismaClient,
  taskId: string,
  { intervalMs = progressWriteIntervalMs, firstAfterMs = firstProgressWriteAfterMs } = {},
): ProgressReporter {
  let written = '';
  let pending: TaskProgress | undefined;
  // As if written just before: the first write comes firstAfterMs from now.
  let lastWriteAt = Date.now() - intervalMs + firstAfterMs;
  let timer: NodeJS.Timeout | undefined;
  let writing = Promise.resolve();

  const flush = () => {
    timer = undefined;
    if (!pending) return;
    const next = JSON.stringify(pending);
    const progress = pending;
    pending = undefined;
    if (next === written) return;
    written = next;
    lastWriteAt = Date.now();
    writing = writing.then(() => recordProgress(prisma, taskId, progress));
  };

  return {
    report(progress) {
      pending = progress;
      if (timer) return;
      timer = setTimeout(flush, Math.max(0, lastWriteAt + intervalMs - Date.now()));
    },
    async close() {
      clearTimeout(timer);
      timer = undefined;
      pending = undefined;
      await writing;
    },
  };
}
