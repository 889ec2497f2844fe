// Holding a read of a task until it ends (`Prefer: wait=N`): the wait is a long poll on the task's workflow through
// the Temporal client, so a waiting caller holds neither a database connection nor a worker; the row is read before
// (a task that ended already answers at once) and once after.
import type { PrismaClient } from '../../db/prisma.ts';
import { hasEnded } from '../../domain/values.ts';
import type { TaskView } from '../../generations/task-view.ts';
import type { AccountKind } from '../../generated/prisma/client.ts';
import { awaitGenerationClosed, type TemporalDeps } from './workflow-client.ts';
import type { EndedTasks } from '../../generations/ended-tasks.ts';
import {
  createGeneration,
  getGeneration,
  type GenerationServiceDeps,
  type NewGeneration,
  type QueuedGeneration,
} from './generations.ts';

export interface GenerationWaitDeps {
  prisma: PrismaClient;
  temporal: TemporalDeps;
  /** Ended tasks already read: answered again without the database. */
  endedTasks?: EndedTasks;
}

/** How long to hold the answer for the task to end (`Prefer: wait=N`); none: answer at once. */
export interface HoldFor {
  waitMs?: number;
  /** Ends the wait early: the caller hung up. */
  signal?: AbortSignal;
}

export interface GenerationWait extends HoldFor {
  taskId: string;
  account: { id: string; kind: AccountKind };
  onlyTask?: string;
}

/** The task as it is once it ended or the wait is over; `ended`: completed or failed. */
export interface WaitedGeneration {
  task: TaskView;
  ended: boolean;
}

/**
 * The caller's task once it has ended, or as it is when `waitMs` is up (no `waitMs`: as it is now). Temporal
 * unreachable (or the workflow gone) ends the wait early; the answer is then the row as it is, like a read without a
 * wait.
 */
export async function awaitGeneration(deps: GenerationWaitDeps, input: GenerationWait): Promise<WaitedGeneration> {
  const before = await getGeneration(deps, input);
  if (input.waitMs === undefined || hasEnded(before.status)) return { task: before, ended: hasEnded(before.status) };
  await awaitGenerationClosed(deps.temporal, input.taskId, input.waitMs, input.signal);
  const after = await getGeneration(deps, input);
  return { task: after, ended: hasEnded(after.status) };
}

/** An admitted task, and the task itself when it ended within the wait asked for. */
export interface AdmittedGeneration {
  queued: QueuedGeneration;
  ended?: TaskView;
}

/** Admits a task (as POST /generations does) and, when asked, holds the answer until it ends or the wait is up. */
export async function createGenerationAndWait(
  deps: GenerationServiceDeps & GenerationWaitDeps,
  input: NewGeneration & HoldFor,
): Promise<AdmittedGeneration> {
  const { waitMs, signal, ...admission } = input;
  const queued = await createGeneration(deps, admission);
  if (waitMs === undefined) return { queued };
  const account = { id: input.accountId, kind: input.accountKind };
  const waited = await awaitGeneration(deps, { taskId: queued.id, account, waitMs, signal });
  return waited.ended ? { queued, ended: waited.task } : { queued };
}
