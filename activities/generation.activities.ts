// Activities of the generation workflow on its main task queue: thin wrappers over src/generations/tasks. Money keys
// derive from the task id, so a retried activity never moves money twice.
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Catalog } from '../src/catalog/catalog.ts';
import type { Config } from '../src/config/config.ts';
import { taskView, type TaskView } from '../src/generations/task-view.ts';
import { AdmissionAbandonedError, adoptOrAbandonAdmission } from '../src/generations/admission-fence.ts';
import { InsufficientFundsError, LedgerError } from '../src/ledger/ledger.ts';
import { KeyPolicyError } from '../src/accounts/key-policy.ts';
import { notifyBudgetAlerts } from '../src/accounts/budget-alert-notices.ts';
import { type CreatedMessage, createWebhookMessage, type WebhookEventInput } from '../src/webhooks/messages.ts';
import {
  completeTask,
  type Delivered,
  failTask,
  findAdmittedTask,
  markProcessing,
  type TaskRow,
  usedCost,
} from '../src/generations/tasks.ts';
import {
  PayerBusyError,
  PaymentNotSettledError,
  PaymentTakenError,
  paymentMethods,
  type PaymentMethods,
  type PaymentSettlementDeps,
} from '../src/payments/methods/registered.ts';
import { modelOf } from './catalog-lookup.ts';
import type { AdmitInput, TaskAdmission } from '../workflows/contracts/generation.types.ts';
import type { GeneratedOutputs } from '../workflows/contracts/provider.types.ts';
import { classifyFailures } from './failures.ts';
import type { WorkflowStarter } from './workflow-starter.ts';
import type { Storage } from '../src/storage/storage.ts';

const heartbeatEveryMs = 3_000;

/** The workflow run an activity works for: admission attempts and the give-up are fenced by it. */
const runIdOf = () => Context.current().info.workflowExecution?.runId;

/** A settled task, and its final event's message when the workflow is to deliver one. */
export interface Settled {
  task: TaskView;
  webhook: CreatedMessage | null;
}

export interface GenerationActivityDeps extends PaymentSettlementDeps {
  catalog: Catalog;
  config: Pick<Config, 'chains' | 'outputs' | 'temporal'>;
  storage: Pick<Storage, 'removeFolders'>;
  starter: Pick<WorkflowStarter, 'notifyWebhook'>;
  /** The ways to pay (the process's registry; a test's may hold one of its own). */
  payments?: PaymentMethods;
}

// Admission has committed by then: a database lost in between must not fail it. The workflow marks the task itself.
const markedProcessing = (prisma: GenerationActivityDeps['prisma'], task: TaskRow) =>
  markProcessing(prisma, task).catch((error: unknown) => {
    Context.current().log.warn('admitted; marking the task processing is left to its workflow', {
      taskId: task.id,
      error: error instanceof Error ? error.message : String(error),
    });
    return undefined;
  });

// The budget alerts the admission recorded, at the account's webhook. Admission has committed: a failure here must not
// fail it, and the task reconciler starts whatever is left.
const notifiedBudgetAlerts = (deps: GenerationActivityDeps, taskId: string) => {
  const notify = (input: WebhookEventInput) => deps.starter.notifyWebhook(Context.current().client, input);
  return notifyBudgetAlerts(deps.prisma, notify, { taskId }).catch((error: unknown) => {
    Context.current().log.warn('admitted; its budget alerts are left to the task reconciler', {
      taskId,
      error: error instanceof Error ? error.message : String(error),
    });
  });
};

// Outputs stored before the task failed (an x402 payment that never settled, a cancel) were never paid for. Not
// waited for: /files/ never serves a failed task's files, and the retention sweep removes what is left.
const removeUndeliveredOutputs = (storage: GenerationActivityDeps['storage'], taskId: string) =>
  storage.removeFolders(taskId).catch((error: unknown) => {
    Context.current().log.warn('a failed task kept its stored outputs for the retention sweep', {
      taskId,
      error: error instanceof Error ? error.message : String(error),
    });
  });

/** An admission that failed: the caller's answer when it was refused, else the failure in Temporal's terms. */
function refusedAdmission(error: unknown): TaskAdmission {
  if (error instanceof InsufficientFundsError)
    return { outcome: 'insufficient_funds', availableMicros: error.available.toString() };
  if (error instanceof PayerBusyError) return { outcome: 'payer_busy', limit: error.limit };
  if (error instanceof KeyPolicyError)
    return { outcome: 'policy_refused', code: error.code, message: error.message, details: error.details };
  // This run gave up on the admission while this attempt was under way: nothing was, or will be, reserved.
  if (error instanceof AdmissionAbandonedError)
    throw ApplicationFailure.nonRetryable(error.message, 'AdmissionAbandoned');
  // A refusal of the ledger (no balance row, a key reused) will not change on retry.
  if (error instanceof LedgerError) throw ApplicationFailure.nonRetryable(error.message, 'LedgerError');
  // Nor will a payment that pays another task: the caller's retry is answered that task.
  if (error instanceof PaymentTakenError) throw ApplicationFailure.nonRetryable(error.message, 'PaymentTaken');
  throw error;
}

/** Settles the task's payment for what it used; a payment that no longer pays is not retried. */
async function settleUsedPayment(
  deps: GenerationActivityDeps,
  input: { taskId: string; modelId: string } & Delivered,
): Promise<void> {
  // Heartbeats while a transaction is awaited: a worker that dies mid-settlement is noticed in seconds.
  const context = Context.current();
  const beating = setInterval(() => context.heartbeat(), heartbeatEveryMs);
  try {
    const task = await deps.prisma.task.findUniqueOrThrow({ where: { id: input.taskId } });
    const usedMicros = usedCost(modelOf(deps.catalog, input.modelId), task, input);
    await (deps.payments ?? paymentMethods).settle(deps, { taskId: input.taskId, usedMicros });
  } catch (error) {
    if (error instanceof PaymentNotSettledError)
      throw ApplicationFailure.nonRetryable(error.message, 'PaymentNotSettled');
    throw error;
  } finally {
    clearInterval(beating);
  }
}

export function createGenerationActivities(deps: GenerationActivityDeps) {
  const view = (task: TaskRow) => taskView(task, deps.config.outputs);
  const payments = deps.payments ?? paymentMethods;
  const { heldPaymentRules } = payments;
  return classifyFailures({
    async admitTask(input: AdmitInput): Promise<TaskAdmission> {
      try {
        const admission = { ...input, costMicros: BigInt(input.costMicros), runId: runIdOf() };
        const task = await payments.admitTask(deps.prisma, admission);
        // Marked processing in this same step (one of its own would cost a round trip); the answer shows it queued.
        const processing = await markedProcessing(deps.prisma, task);
        // Only the admission that recorded alerts starts them (a retry that found the row leaves its to the reconciler).
        if (task.budgetAlerts) await notifiedBudgetAlerts(deps, task.id);
        return { outcome: 'admitted', task: view(task), processing: processing && view(processing) };
      } catch (error) {
        return refusedAdmission(error);
      }
    },

    /** The task row an admission committed, while it has not ended: what a workflow whose update was lost adopts. */
    async findAdmittedTask(taskId: string): Promise<TaskView | null> {
      const task = await findAdmittedTask(deps.prisma, taskId);
      return task && view(task);
    },

    /**
     * Once a run's admission attempts ran out: the row one of them committed (adopted, not failed: a retried POST
     * attaches to it), or null, and a tombstone so that none commits later.
     */
    async adoptOrAbandonAdmission(taskId: string): Promise<TaskView | null> {
      const runId = runIdOf();
      if (!runId) throw new Error('adoptOrAbandonAdmission runs only as a workflow activity');
      const task = await adoptOrAbandonAdmission(deps.prisma, { taskId, runId });
      return task && view(task);
    },

    async markProcessing(taskId: string): Promise<TaskView> {
      return view(await markProcessing(deps.prisma, taskId));
    },

    /**
     * Settles an x402 task's payment on chain, once: `exact` the authorized amount, `upto` what the task used. A
     * payment that no longer pays fails the task.
     */
    async settlePayment(input: { taskId: string; modelId: string } & Delivered): Promise<void> {
      await settleUsedPayment(deps, input);
    },

    /**
     * Completes the task, charging what it used; with `notify`, then writes its final event's message in the same
     * step, as the notify step would (most tasks have no webhook: a step of its own only to learn that costs a round
     * trip), for the workflow to deliver. A retry finds the task ended and the message written.
     */
    async settleTask(
      input: { taskId: string; modelId: string; notify?: boolean } & GeneratedOutputs,
    ): Promise<Settled> {
      const task = await completeTask(deps.prisma, modelOf(deps.catalog, input.modelId), input, heldPaymentRules);
      const ended = view(task);
      if (!input.notify || (ended.status !== 'completed' && ended.status !== 'failed'))
        return { task: ended, webhook: null };
      const webhook = await createWebhookMessage(deps.prisma, {
        event: `generation.${ended.status}`,
        subject: task.id,
        accountId: task.accountId,
        taskId: task.id,
        taskWebhook: task,
        data: ended,
      });
      return { task: ended, webhook };
    },

    async failTask(input: { taskId: string; error: string }): Promise<TaskView | null> {
      const task = await failTask(deps.prisma, { ...input, runId: runIdOf() }, heldPaymentRules);
      if (task?.status === 'failed') await removeUndeliveredOutputs(deps.storage, task.id);
      return task && view(task);
    },
  });
}

export type GenerationActivities = ReturnType<typeof createGenerationActivities>;
