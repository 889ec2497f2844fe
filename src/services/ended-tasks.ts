// A task that has ended never changes: pollers reading it again are answered from memory instead of the database.
// Tasks paid with x402 are left out (their payment row is another table's); they are read from the database.
import type { TaskView } from '../generation/task-view.ts';

/** Enough for the ended tasks pollers of a busy gateway read in a while; past it the oldest go first. */
const maxEntries = 10_000;

export interface EndedTasks {
  /** The ended task if it is known and the account's; otherwise nothing (read the database). */
  get(taskId: string, accountId: string): TaskView | undefined;
  /** Remembers the task if it has ended. */
  remember(accountId: string, task: TaskView): void;
}

export function createEndedTasks(): EndedTasks {
  const ended = new Map<string, { accountId: string; task: TaskView }>();
  return {
    get(taskId, accountId) {
      const hit = ended.get(taskId);
      return hit?.accountId === accountId ? hit.task : undefined;
    },
    remember(accountId, task) {
      if (task.status !== 'completed' && task.status !== 'failed') return;
      if (ended.size >= maxEntries) ended.delete(ended.keys().next().value!);
      ended.set(task.id, { accountId, task });
    },
  };
}
