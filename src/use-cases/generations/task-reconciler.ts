// The safety net behind admission: a Temporal Schedule runs taskReconcilerWorkflow every minute. It finds tasks still
// `queued` long after they were admitted and makes each one end: a running workflow is sent its admission again (it
// adopts the row), a task whose workflow closed or never existed is released and failed. Tasks `processing` whose
// workflow closed (terminated, or its compensation gave up) are released and failed too: no reservation outlives its
// workflow. Budget alerts whose webhook was never started are started, and top-ups left unsettled are settled or
// failed by their workflow, started again. Each run's report is its result in the Web UI.
import type { Client } from '@temporalio/client';
import { admitUpdate } from '../../../workflows/contracts/generation.types.ts';
import type {
  ReconcileInput,
  ReconcileReport,
  Repair,
  TaskReconcilerWorkflow,
} from '../../../workflows/contracts/task-reconciler.types.ts';
import type { Config } from '../../config/config.ts';
import type { PrismaClient } from '../../db/prisma.ts';
import { requestHash } from '../../generations/request.ts';
import { taskView } from '../../generations/task-view.ts';
import type { OutputRetention } from '../../generations/output-retention.ts';
import { pruneAbandonedAdmissions } from '../../generations/admission-fence.ts';
import { notifyBudgetAlerts } from '../../accounts/budget-alert-notices.ts';
import { findLongProcessingTasks, releasedBy } from '../../generations/stranded-tasks.ts';
import type { PaymentMethods } from '../../payments/methods/registered.ts';
import { failTask, findLongQueuedTasks, storedRequest, type TaskRow } from '../../generations/tasks.ts';
import { ensureIntervalSchedule } from '../temporal/schedules.ts';
import { workflowStatus } from '../temporal/workflow-status.ts';
import { resumeStrandedTopUps } from '../top-ups/stranded-top-ups.ts';
import { notifyWebhookEvent } from '../temporal/webhook-deliveries.ts';

export const taskReconcilerScheduleId = 'task-reconciler';

/** A stranded task is never charged: whatever it reserved goes back. */
export const strandedTaskError =
  'The task was admitted but could not be started (the service was interrupted). You have not been charged.';
export const interruptedTaskError =
  'The task was interrupted before it finished (the service stopped running it). You have not been charged.';

// Running tasks are skipped, not repaired: at most this many pages of them are looked through per run.
const processingPagesPerRun = 20;
// Longer than any admission attempt can still be under way: a tombstone older than this guards nothing.
const abandonedAdmissionTtlMs = 7 * 86_400_000;

// A running workflow answers its admission in milliseconds; one that does not is tried again at the next run.
const updateWaitMs = 10_000;

export interface ReconcilerDeps {
  prisma: PrismaClient;
  client: Client;
  /** The main task queue: webhook deliveries and top-up workflows. */
  taskQueue: string;
  /** OUTPUT_RETENTION_DAYS, for the view its webhooks carry. */
  retention: OutputRetention;
  /** The ways to pay: what failing a task does with a payment held beside it. */
  payments: Pick<PaymentMethods, 'heldPaymentRules'>;
}

/** Sends the admit update again, as a retried POST would: admitTask finds the row and reserves nothing more. */
async function admitAgain(deps: ReconcilerDeps, task: TaskRow): Promise<Repair> {
  const base = { taskId: task.id, workflow: 'RUNNING' };
  try {
    const answer = await deps.client.withDeadline(Date.now() + updateWaitMs, () =>
      deps.client.workflow
        .getHandle(task.id)
        .executeUpdate(admitUpdate, { args: [{ requestHash: requestHash(storedRequest(task)) }] }),
    );
    return answer.outcome === 'admitted'
      ? { ...base, action: 'admitted' }
      : { ...base, action: 'unanswered', detail: answer.outcome };
  } catch (error) {
    return { ...base, action: 'unanswered', detail: (error as Error).message };
  }
}

/** No workflow will ever finish the task: release what it holds, fail it, and tell its webhooks, as the workflow would. */
async function failStranded(deps: ReconcilerDeps, task: TaskRow, workflow: string): Promise<Repair> {
  const status = task.status === 'processing' ? 'processing' : 'queued';
  const error = status === 'processing' ? interruptedTaskError : strandedTaskError;
  const failed = await failTask(
    deps.prisma,
    { taskId: task.id, error, onlyIf: status },
    deps.payments.heldPaymentRules,
  );
  if (failed?.status !== 'failed') return { taskId: task.id, workflow, action: 'started' };
  await notifyWebhookEvent(
    { prisma: deps.prisma, client: deps.client, taskQueue: deps.taskQueue },
    {
      event: 'generation.failed',
      subject: task.id,
      accountId: task.accountId,
      taskId: task.id,
      data: taskView(failed, deps.retention),
    },
  );
  const released = await releasedBy(deps.prisma, task.id);
  return { taskId: task.id, workflow, action: 'failed', releasedMicros: released.toString() };
}

/** Makes every task queued for longer than `olderThanSeconds` end (up to `limit` of them per call). */
export async function reconcileQueuedTasks(deps: ReconcilerDeps, input: ReconcileInput): Promise<ReconcileReport> {
  const createdBefore = new Date(Date.now() - input.olderThanSeconds * 1000);
  const tasks = await findLongQueuedTasks(deps.prisma, { createdBefore, limit: input.limit });
  const repairs = await Promise.all(
    tasks.map(async (task) => {
      const workflow = await workflowStatus(deps.client, task.id);
      return workflow === 'RUNNING' ? admitAgain(deps, task) : failStranded(deps, task, workflow);
    }),
  );
  return { checked: tasks.length, repairs };
}

/**
 * Releases and fails every task `processing` (untouched for `olderThanSeconds`) whose workflow has closed or is gone;
 * a running one is left alone. Also prunes admission tombstones too old to guard anything, and starts again the
 * workflows of top-ups left unsettled that long.
 */
export async function releaseClosedTasks(deps: ReconcilerDeps, input: ReconcileInput): Promise<ReconcileReport> {
  const updatedBefore = new Date(Date.now() - input.olderThanSeconds * 1000);
  const repairs: Repair[] = [];
  let checked = 0;
  let after: TaskRow | undefined;
  for (let page = 0; page < processingPagesPerRun && repairs.length < input.limit; page += 1) {
    const tasks = await findLongProcessingTasks(deps.prisma, { updatedBefore, limit: input.limit, after });
    checked += tasks.length;
    const found = await Promise.all(
      tasks.map(async (task) => {
        const workflow = await workflowStatus(deps.client, task.id);
        return workflow === 'RUNNING' ? null : failStranded(deps, task, workflow);
      }),
    );
    repairs.push(...found.filter((repair) => repair !== null));
    if (tasks.length < input.limit) break;
    after = tasks.at(-1);
  }
  const pruned = await pruneAbandonedAdmissions(deps.prisma, new Date(Date.now() - abandonedAdmissionTtlMs));
  const notified = await notifyLeftBudgetAlerts(deps, input);
  const createdBefore = new Date(Date.now() - input.olderThanSeconds * 1000);
  const topUps = await resumeStrandedTopUps(deps, { createdBefore, limit: input.limit });
  return { checked, repairs, abandonedAdmissionsPruned: pruned, budgetAlertsNotified: notified, topUpsResumed: topUps };
}

/**
 * Starts the webhooks of budget alerts older than `olderThanSeconds` still not notified: their admission committed
 * but its worker stopped before starting them. Inside this pass, so that the reconciler's workflow is unchanged.
 */
function notifyLeftBudgetAlerts(deps: ReconcilerDeps, input: ReconcileInput): Promise<number> {
  const webhooks = { prisma: deps.prisma, client: deps.client, taskQueue: deps.taskQueue };
  return notifyBudgetAlerts(deps.prisma, (event) => notifyWebhookEvent(webhooks, event), {
    createdBefore: new Date(Date.now() - input.olderThanSeconds * 1000),
    limit: input.limit,
  });
}

/** The reconciler's schedule: every TASK_RECONCILE_INTERVAL_SECONDS, one run at a time. */
export async function ensureTaskReconcilerSchedule(
  client: Client,
  config: Pick<Config, 'reconciler' | 'temporal'>,
): Promise<string> {
  return ensureIntervalSchedule<TaskReconcilerWorkflow>(client, {
    scheduleId: taskReconcilerScheduleId,
    workflowType: 'taskReconcilerWorkflow',
    everySeconds: config.reconciler.intervalSeconds,
    args: [{ olderThanSeconds: config.reconciler.afterSeconds, limit: 50 }],
    taskQueue: config.temporal.taskQueue,
  });
}
