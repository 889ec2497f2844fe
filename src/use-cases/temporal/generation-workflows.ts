// The api's side of the generation workflow: admission by update-with-start.
import {
  type Client,
  WithStartWorkflowOperation,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import {
  type AdmitUpdateResult,
  admitUpdate,
  cancelledError,
  type GenerationInput,
  type GenerationWorkflow,
} from '../../../workflows/contracts/generation.types.ts';
import {
  genAccountId,
  genAccountKind,
  genModel,
  genPaymentMethod,
  genProvider,
  genStatus,
  genType,
} from '../../../workflows/contracts/search-attributes.ts';
import { providerSlugOf } from '../../../workflows/contracts/task-queues.ts';
import type { AccountKind } from '../../generated/prisma/client.ts';
import { formatUsd } from '../../domain/money.ts';
import { paymentMethods, type PaymentMethods } from '../../payments/methods/registered.ts';
import { isTemporalUnreachable, isWorkflowBusy } from './unreachable.ts';
import { deadline } from '../../net/deadline.ts';
import { watchClosed } from './closed-watch.ts';
import { startOrJoinWithUpdate } from './start-or-join.ts';

export { cancelledError };

export interface TemporalDeps {
  client: Client;
  taskQueue: string;
}

// Longer than the admit update can take (its activity gives up within 30 s), so the wait ends early only when
// Temporal itself does not answer.
const admissionWaitMs = 45_000;

/** What executeAdmitUpdate tells the api: the admit update's answer, or why there was none. */
export type AdmissionOutcome =
  | AdmitUpdateResult
  /** Admission could not be confirmed (the database or Temporal unreachable, …): a retry with the same claim finds its task. */
  | { outcome: 'unavailable' };

/**
 * What the starter knows of the task, for the Web UI's filters; the workflow keeps GenStatus current. `processing`
 * from the start: admission marks the task so in the same step, and an upsert of its own would cost a visibility write.
 */
export function generationSearchAttributes(
  input: GenerationInput,
  accountKind: AccountKind,
  payments: PaymentMethods = paymentMethods,
) {
  return [
    { key: genStatus, value: 'processing' },
    { key: genType, value: input.request.type },
    { key: genModel, value: input.modelId },
    { key: genProvider, value: providerSlugOf(input.modelId) },
    { key: genAccountId, value: input.accountId },
    { key: genAccountKind, value: accountKind },
    { key: genPaymentMethod, value: payments.kindOf(input) },
  ];
}

/** The line the Web UI's list shows for the task (user metadata): what, which model, what it costs, for whom. */
export function generationSummary(
  input: GenerationInput,
  accountKind: AccountKind,
  payments: PaymentMethods = paymentMethods,
) {
  const paid = payments.describe(input);
  return {
    staticSummary: `${input.request.type} · ${input.modelId} · $${formatUsd(BigInt(input.costMicros))} · ${accountKind} ${input.accountId}`,
    staticDetails: [
      `Task ${input.taskId}: ${input.request.type} with ${input.modelId}`,
      `Cost $${formatUsd(BigInt(input.costMicros))}, ${paid}`,
      `Caller: ${accountKind} account ${input.accountId}`,
    ].join('\n\n'),
  };
}

/**
 * Starts the task's workflow (or joins it while it runs: a retried request with the same Idempotency-Key maps to
 * the same workflow id) and waits only for admission: the reservation and the task row are durable when this
 * returns. A workflow that ended may only start again if it failed (a refused admission), never run twice. The
 * request hash travels in the input only: the update's argument is taken from it.
 */
export async function executeAdmitUpdate(
  temporal: TemporalDeps,
  input: GenerationInput,
  caller: { accountKind: AccountKind; payments?: PaymentMethods },
): Promise<AdmissionOutcome> {
  const start = new WithStartWorkflowOperation<GenerationWorkflow>('generationWorkflow', {
    workflowId: input.taskId,
    taskQueue: temporal.taskQueue,
    args: [input],
    typedSearchAttributes: generationSearchAttributes(input, caller.accountKind, caller.payments),
    ...generationSummary(input, caller.accountKind, caller.payments),
    workflowIdConflictPolicy: 'USE_EXISTING',
    // A refused admission completes its run; a later one of the same id starts anew (a task that ended already
    // answers from its row, and a run started for it anyway ends at once: admitTask finds the row ended).
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
  });
  try {
    const args: [{ requestHash: string }] = [{ requestHash: input.requestHash }];
    return await startOrJoinWithUpdate(temporal.client, admitUpdate, args, start, admissionWaitMs);
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError || isTemporalUnreachable(error) || isWorkflowBusy(error))
      return { outcome: 'unavailable' };
    throw error;
  }
}

/**
 * Asks the task's workflow to cancel (Temporal cancellation: its compensation releases and fails the task); false
 * when no workflow of that id is running (it ended, or Temporal lost it). Asking again is a no-op.
 */
export async function requestGenerationCancel(temporal: TemporalDeps, taskId: string): Promise<boolean> {
  try {
    await temporal.client.workflow.getHandle(taskId).cancel();
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/**
 * Waits at most `waitMs` for the task's workflow to close, however it closes (a cancelled one closes cancelled), or
 * until `signal` aborts. A long poll on the workflow's history, shared by every waiter on the task in this process
 * (closed-watch.ts). The wait ends on time even while the client is still connecting or backing off.
 */
export async function awaitGenerationClosed(
  temporal: TemporalDeps,
  taskId: string,
  waitMs: number,
  signal?: AbortSignal,
): Promise<void> {
  const limit = deadline(waitMs, signal);
  const stop = limit.signal;
  const stopped = new Promise<false>((resolve) => stop.addEventListener('abort', () => resolve(false), { once: true }));
  try {
    while (!stop.aborted) {
      const watch = watchClosed(temporal.client, taskId);
      const closed = await Promise.race([watch.closed, stopped]).finally(watch.leave);
      if (closed) return;
    }
  } finally {
    limit.clear();
  }
}
