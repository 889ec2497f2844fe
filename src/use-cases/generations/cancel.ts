// Cancelling a generation task: what POST /generations/{id}/cancel and `genctl tasks cancel` mean. The task's
// workflow does the work (it cancels an upstream job, releases the reservation and ends the task `failed` with
// error `cancelled`, then sends its webhook); this asks for it and waits a little for the end.
import type { Config } from '../../config/config.ts';
import type { PrismaClient } from '../../db/prisma.ts';
import { NotFoundError, TaskEndedError } from '../../domain/errors.ts';
import { hasEnded } from '../../domain/values.ts';
import { taskView, type TaskView } from '../../generations/task-view.ts';
import {
  awaitGenerationClosed,
  cancelledError,
  requestGenerationCancel,
  type TemporalDeps,
} from '../temporal/generation-workflows.ts';
import { notifyWebhookEvent } from '../temporal/webhook-deliveries.ts';
import { paymentMethods, type PaymentMethods } from '../../payments/methods/registered.ts';
import { failTask, findTaskForAccount, type TaskRow } from '../../generations/tasks.ts';

export interface CancelDeps {
  prisma: PrismaClient;
  temporal: TemporalDeps;
  config: Pick<Config, 'temporal' | 'outputs'>;
  /** The ways to pay (the app's registry): what failing a task does with a payment held beside it. */
  payments?: Pick<PaymentMethods, 'heldPaymentRules'>;
}

/** `owner`: the caller's account (a task token: its one task); none for an operator, who may cancel any task. */
export interface CancelRequest {
  taskId: string;
  owner?: { accountId: string; onlyTask?: string; onlyKey?: string };
}

/** The task as it is after the wait; `ended`: the cancel has landed (the task is `failed` with error `cancelled`). */
export interface CancelOutcome {
  task: TaskView;
  ended: boolean;
}

// Most cancels land well within this (an upstream job, a task waiting for a slot); a local engine hears of it at its
// next heartbeat, which may take longer: the caller then has 202 and polls.
export const cancelWaitMs = 3_000;

const isCancelled = (task: TaskRow) => task.status === 'failed' && task.error === cancelledError;

async function findTask(deps: CancelDeps, input: CancelRequest): Promise<TaskRow | null> {
  const { owner, taskId } = input;
  if (!owner) return deps.prisma.task.findUnique({ where: { id: taskId }, include: { payment: true } });
  // A task token cancels its own task; any other id is answered as not found, like someone else's task.
  if (owner.onlyTask !== undefined && owner.onlyTask !== taskId) return null;
  const task = (await findTaskForAccount(deps.prisma, taskId, owner.accountId)) as TaskRow | null;
  return task && owner.onlyKey && task.apiKeyId !== owner.onlyKey ? null : task;
}

/** The answer once the row has ended: cancelled (a repeat is fine), or it ended otherwise first (409). */
function endedOutcome(deps: CancelDeps, task: TaskRow): CancelOutcome {
  if (!isCancelled(task)) throw new TaskEndedError(task.id, task.status);
  return { task: taskView(task, deps.config.outputs), ended: true };
}

/**
 * No workflow will end this task any more (it closed without ending it, or Temporal lost it): it is released and
 * failed here, as the task reconciler would, and its webhook is sent, as the workflow would.
 */
async function failWithoutWorkflow(deps: CancelDeps, task: TaskRow): Promise<TaskRow> {
  const onlyIf = task.status === 'processing' ? 'processing' : 'queued';
  const failed = await failTask(
    deps.prisma,
    { taskId: task.id, error: cancelledError, onlyIf },
    (deps.payments ?? paymentMethods).heldPaymentRules,
  );
  if (!failed || !isCancelled(failed)) return failed ?? task;
  await notifyWebhookEvent(
    { prisma: deps.prisma, client: deps.temporal.client, taskQueue: deps.config.temporal.taskQueue },
    {
      event: 'generation.failed',
      subject: task.id,
      accountId: task.accountId,
      taskId: task.id,
      data: taskView(failed, deps.config.outputs),
    },
  );
  return failed;
}

/**
 * Cancels a queued or processing task through its workflow and waits up to `cancelWaitMs` for it to end. A task
 * cancelled already answers as it is (cancelling twice is fine); one that completed or failed otherwise is refused.
 */
export async function cancelGeneration(deps: CancelDeps, input: CancelRequest): Promise<CancelOutcome> {
  const found = await findTask(deps, input);
  if (!found) throw new NotFoundError(`No generation ${input.taskId}.`);
  if (hasEnded(found.status)) return endedOutcome(deps, found);
  const task = (await requestGenerationCancel(deps.temporal, found.id))
    ? await afterCancel(deps, input)
    : await failWithoutWorkflow(deps, found);
  return hasEnded(task.status) ? endedOutcome(deps, task) : { task: taskView(task, deps.config.outputs), ended: false };
}

/** The task once its workflow has closed, or as it is when the wait is over. */
async function afterCancel(deps: CancelDeps, input: CancelRequest): Promise<TaskRow> {
  await awaitGenerationClosed(deps.temporal, input.taskId, cancelWaitMs);
  return (await findTask(deps, input))!;
}
