// Holding a read of a task until it ends (`Prefer: wait=N`): the wait is a long poll on the task's workflow through
// the Temporal client, so a waiting caller holds neither a database connection nor a worker; the row is read before
// (a task that ended already answers at once) and once after.
import type { PrismaClient } from '../db/prisma.ts';
import type { TaskView } from '../generation/task-view.ts';
import type { AccountKind } from '../generated/prisma/client.ts';
import { awaitGenerationClosed, type TemporalDeps } from '../temporal/generations.ts';
import { getGeneration } from './generations.ts';

export interface GenerationWaitDeps {
  prisma: PrismaClient;
  temporal: TemporalDeps;
}

export interface GenerationWait {
  taskId: string;
  account: { id: string; kind: AccountKind };
  onlyTask?: string;
  waitMs: number;
  /** Ends the wait early: the caller hung up. */
  signal?: AbortSignal;
}

/** The task as it is once it ended or the wait is over; `ended`: completed or failed. */
export interface WaitedGeneration {
  task: TaskView;
  ended: boolean;
}

const hasEnded = (task: TaskView) => task.status === 'completed' || task.status === 'failed';

/**
 * The caller's task once it has ended, or as it is when `waitMs` is up. Temporal unreachable (or the workflow gone)
 * ends the wait early; the answer is then the row as it is, like a read without a wait.
 */
export async function awaitGeneration(deps: GenerationWaitDeps, input: GenerationWait): Promise<WaitedGeneration> {
  const before = await getGeneration(deps, input);
  if (hasEnded(before)) return { task: before, ended: true };
  await awaitGenerationClosed(deps.temporal, input.taskId, input.waitMs, input.signal);
  const after = await getGeneration(deps, input);
  return { task: after, ended: hasEnded(after) };
}
