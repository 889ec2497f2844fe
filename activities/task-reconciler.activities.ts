// The task reconciler's activities: thin wrappers over src/orchestration/generations/task-reconciler, with the worker's client. Each
// repair is logged for operators; the run's report is the workflow's result.
import { Context } from '@temporalio/activity';
import type { Config } from '../src/config/config.ts';
import type { PrismaClient } from '../src/db/prisma.ts';
import {
  reconcileQueuedTasks,
  releaseClosedTasks,
  type ReconcilerDeps,
} from '../src/orchestration/generations/task-reconciler.ts';
import type { ReconcileInput, ReconcileReport } from '../workflows/task-reconciler.types.ts';
import { classifyFailures } from './failures.ts';

export interface TaskReconcilerActivityDeps {
  prisma: PrismaClient;
  config: Pick<Config, 'temporal' | 'outputs'>;
}

/** Runs one pass with the worker's client and logs each repair it made. */
async function reportedPass(
  deps: TaskReconcilerActivityDeps,
  pass: (reconciler: ReconcilerDeps, input: ReconcileInput) => Promise<ReconcileReport>,
  input: ReconcileInput,
): Promise<ReconcileReport> {
  const { client, log } = Context.current();
  const report = await pass(
    {
      prisma: deps.prisma,
      client,
      webhookTaskQueue: deps.config.temporal.webhookTaskQueue,
      retention: deps.config.outputs,
    },
    input,
  );
  for (const repair of report.repairs) {
    const level = repair.action === 'unanswered' ? 'warn' : 'info';
    log[level](`task reconciler: ${repair.taskId} ${repair.action}`, { ...repair });
  }
  return report;
}

export function createTaskReconcilerActivities(deps: TaskReconcilerActivityDeps) {
  return classifyFailures({
    async reconcileQueuedTasks(input: ReconcileInput): Promise<ReconcileReport> {
      return reportedPass(deps, reconcileQueuedTasks, input);
    },

    async releaseClosedTasks(input: ReconcileInput): Promise<ReconcileReport> {
      return reportedPass(deps, releaseClosedTasks, input);
    },
  });
}

export type TaskReconcilerActivities = ReturnType<typeof createTaskReconcilerActivities>;
