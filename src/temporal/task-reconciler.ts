// The safety net behind admission: a Temporal Schedule runs taskReconcilerWorkflow every minute. It finds tasks still
// `queued` long after they were admitted and makes each one end: a running workflow is sent its admission again (it
// adopts the row), a task whose workflow closed or never existed is released and failed. Each run's report is its
// result in the Web UI.
import {
  type Client,
  type ScheduleOptions,
  type ScheduleOptionsStartWorkflowAction,
  WorkflowNotFoundError,
} from '@temporalio/client';
import { admitUpdate } from '../../workflows/generation.workflow.ts';
import type {
  ReconcileInput,
  ReconcileReport,
  Repair,
  TaskReconcilerWorkflow,
} from '../../workflows/task-reconciler.types.ts';
import type { Config } from '../config.ts';
import type { PrismaClient } from '../db/prisma.ts';
import { requestHash } from '../generation/request.ts';
import { taskView } from '../generation/task-view.ts';
import { failTask, findLongQueuedTasks, storedRequest, type TaskRow } from '../services/tasks.ts';
import { ensureSchedule } from './schedules.ts';
import { notifyWebhookEvent } from './webhooks.ts';

export const taskReconcilerScheduleId = 'task-reconciler';

/** A stranded task is never charged: whatever it reserved goes back. */
export const strandedTaskError =
  'The task was admitted but could not be started (the service was interrupted). You have not been charged.';

// A running workflow answers its admission in milliseconds; one that does not is tried again at the next run.
const updateWaitMs = 10_000;

export interface ReconcilerDeps {
  prisma: PrismaClient;
  client: Client;
  webhookTaskQueue: string;
}

async function workflowStatus(client: Client, taskId: string): Promise<string> {
  try {
    return (await client.workflow.getHandle(taskId).describe()).status.name;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return 'NOT_FOUND';
    throw error;
  }
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

/** No workflow will ever run the task: release what it holds, fail it, and tell its webhooks, as the workflow would. */
async function failStranded(deps: ReconcilerDeps, task: TaskRow, workflow: string): Promise<Repair> {
  const failed = await failTask(deps.prisma, { taskId: task.id, error: strandedTaskError, onlyQueued: true });
  if (failed?.status !== 'failed') return { taskId: task.id, workflow, action: 'started' };
  await notifyWebhookEvent(
    { prisma: deps.prisma, client: deps.client, taskQueue: deps.webhookTaskQueue },
    {
      event: 'generation.failed',
      subject: task.id,
      accountId: task.accountId,
      taskId: task.id,
      data: taskView(failed),
    },
  );
  return { taskId: task.id, workflow, action: 'failed' };
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

/** The reconciler's schedule: every TASK_RECONCILE_INTERVAL_SECONDS, one run at a time. */
export async function ensureTaskReconcilerSchedule(client: Client, config: Config): Promise<string> {
  const options = {
    scheduleId: taskReconcilerScheduleId,
    spec: { intervals: [{ every: `${config.TASK_RECONCILE_INTERVAL_SECONDS} seconds` }] },
    action: {
      type: 'startWorkflow' as const,
      workflowType: 'taskReconcilerWorkflow',
      workflowId: taskReconcilerScheduleId,
      args: [{ olderThanSeconds: config.TASK_RECONCILE_AFTER_SECONDS, limit: 50 }],
      taskQueue: config.TEMPORAL_TASK_QUEUE,
    },
    policies: { overlap: 'SKIP' as const },
  } satisfies ScheduleOptions<ScheduleOptionsStartWorkflowAction<TaskReconcilerWorkflow>>;
  return ensureSchedule(client, options);
}
