// A task that has ended never changes: pollers reading it again are answered from memory instead of the database.
// Tasks paid with x402 are left out (their payment row changes as it settles); they are read from the database.
import { hasEnded } from '../domain/values.ts';
import type { TaskView } from './task-view.ts';

/** Memory for ended tasks, measured as their JSON; past it the oldest go first. */
const maxBytes = 32 * 1024 * 1024;
/** A task this large (a long prompt) is read from the database each time rather than crowd out hundreds of others. */
const maxTaskBytes = 64 * 1024;

export interface EndedTasks {
  /** The ended task if it is known and the account's; otherwise nothing (read the database). */
  get(taskId: string, accountId: string): TaskView | undefined;
  /** Remembers the task if it has ended. */
  remember(accountId: string, task: TaskView): void;
}

export function createEndedTasks(): EndedTasks {
  const ended = new Map<string, { accountId: string; task: TaskView; bytes: number }>();
  let bytes = 0;
  return {
    get(taskId, accountId) {
      const hit = ended.get(taskId);
      return hit?.accountId === accountId ? hit.task : undefined;
    },
    remember(accountId, task) {
      if (!hasEnded(task.status) || ended.has(task.id)) return;
      const size = JSON.stringify(task).length;
      if (size > maxTaskBytes) return;
      for (const [id, oldest] of ended) {
        if (bytes + size <= maxBytes) break;
        ended.delete(id);
        bytes -= oldest.bytes;
      }
      ended.set(task.id, { accountId, task, bytes: size });
      bytes += size;
    },
  };
}
