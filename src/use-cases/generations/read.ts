// Reading a generation task (GET /generations/{id}), held up to `Prefer: wait=N` for it to end. The wait is a long poll
// on the task's workflow through the Temporal client, so a waiting caller holds neither a database connection nor a
// worker; the row is read before (a task that ended already answers at once) and once after.
import type { Config } from '../../config/config.ts';
import type { PrismaClient } from '../../db/prisma.ts';
import { NotFoundError } from '../../domain/errors.ts';
import { hasEnded } from '../../domain/values.ts';
import type { AccountKind } from '../../generated/prisma/client.ts';
import type { EndedTasks } from '../../generations/ended-tasks.ts';
import { findTaskForAccount } from '../../generations/tasks.ts';
import { taskView, type TaskView } from '../../generations/task-view.ts';
import { awaitGenerationClosed, type TemporalDeps } from '../temporal/generation-workflows.ts';

export interface GenerationReadDeps {
  prisma: PrismaClient;
  temporal: TemporalDeps;
  config: Pick<Config, 'outputs'>;
  /** Ended tasks already read: answered again without the database. */
  endedTasks?: EndedTasks;
}

/** How long to hold the answer for the task to end (`Prefer: wait=N`); none: answer at once. */
export interface HoldFor {
  waitMs?: number;
  /** Ends the wait early: the caller hung up. */
  signal?: AbortSignal;
}

export interface GenerationRead extends HoldFor {
  taskId: string;
  account: { id: string; kind: AccountKind };
  /** A task token's own task: any other id is not found. */
  onlyTask?: string;
  /** A key with a policy: a task another key created is not found. */
  onlyKey?: string;
}

/** The task as it is once it ended or the wait is over; `ended`: completed or failed. */
export interface ReadGeneration {
  task: TaskView;
  ended: boolean;
}

/**
 * The caller's own task, from its row: the workflow writes each step to the row before it holds it itself, so a
 * query of the workflow (a round trip through Temporal to a worker) would never answer anything fresher.
 */
async function currentTask(
  deps: Pick<GenerationReadDeps, 'prisma' | 'endedTasks' | 'config'>,
  input: GenerationRead,
): Promise<TaskView> {
  // A task token reads its own task; any other id is answered as not found, like someone else's task.
  const allowed = input.onlyTask === undefined || input.onlyTask === input.taskId;
  if (!allowed) throw new NotFoundError(`No generation ${input.taskId}.`);
  // Only wallets pay with x402: other accounts' reads skip the payment query, and may be answered from memory.
  const withPayment = input.account.kind === 'wallet';
  // The memory of ended tasks knows their account, not their key: a key limited to its own tasks reads the row.
  const remembered = withPayment || input.onlyKey ? undefined : deps.endedTasks?.get(input.taskId, input.account.id);
  if (remembered) return remembered;
  const task = await findTaskForAccount(deps.prisma, input.taskId, input.account.id, withPayment);
  if (!task || (input.onlyKey && task.apiKeyId !== input.onlyKey))
    throw new NotFoundError(`No generation ${input.taskId}.`);
  const view = taskView(task, deps.config.outputs);
  if (!withPayment) deps.endedTasks?.remember(input.account.id, view);
  return view;
}

/**
 * The caller's task once it has ended, or as it is when `waitMs` is up (no `waitMs`: as it is now). Temporal
 * unreachable (or the workflow gone) ends the wait early; the answer is then the row as it is, like a read without a
 * wait.
 */
export async function readGeneration(deps: GenerationReadDeps, input: GenerationRead): Promise<ReadGeneration> {
  const before = await currentTask(deps, input);
  return heldUntilEnded(deps, input, before);
}

/**
 * `task` (as just read, or as its admission answered) when it has ended or no wait is asked for; else the task once
 * its workflow has closed or the wait is up, read once more.
 */
export async function heldUntilEnded(
  deps: GenerationReadDeps,
  input: GenerationRead,
  task: TaskView,
): Promise<ReadGeneration> {
  if (input.waitMs === undefined || hasEnded(task.status)) return { task, ended: hasEnded(task.status) };
  await awaitGenerationClosed(deps.temporal, input.taskId, input.waitMs, input.signal);
  const after = await currentTask(deps, input);
  return { task: after, ended: hasEnded(after.status) };
}
