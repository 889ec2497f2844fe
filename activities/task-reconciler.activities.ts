// The task reconciler's activities: its passes, run by the starter with the worker's client. Each repair is logged
// for operators; the run's report is the workflow's result.
import { Context } from '@temporalio/activity';
import type { ReconcileInput, ReconcileReport } from '../workflows/contracts/task-reconciler.types.ts';
import { classifyFailures } from './failures.ts';
import type { WorkflowStarter } from './workflow-starter.ts';

export interface TaskReconcilerActivityDeps {
  starter: Pick<WorkflowStarter, 'reconcileQueuedTasks' | 'releaseClosedTasks'>;
}

type Pass = 'reconcileQueuedTasks' | 'releaseClosedTasks';

/** Runs one pass with the worker's client and logs each repair it made. */
async function reportedPass(
  deps: TaskReconcilerActivityDeps,
  pass: Pass,
  input: ReconcileInput,
): Promise<ReconcileReport> {
  const { client, log } = Context.current();
  const report = await deps.starter[pass](client, input);
  for (const repair of report.repairs) {
    const level = repair.action === 'unanswered' ? 'warn' : 'info';
    log[level](`task reconciler: ${repair.taskId} ${repair.action}`, { ...repair });
  }
  for (const topUp of report.topUpsResumed ?? [])
    log.info(`task reconciler: top-up ${topUp.topUpId} resumed`, { ...topUp });
  return report;
}

export function createTaskReconcilerActivities(deps: TaskReconcilerActivityDeps) {
  return classifyFailures({
    async reconcileQueuedTasks(input: ReconcileInput): Promise<ReconcileReport> {
      return reportedPass(deps, 'reconcileQueuedTasks', input);
    },

    async releaseClosedTasks(input: ReconcileInput): Promise<ReconcileReport> {
      return reportedPass(deps, 'releaseClosedTasks', input);
    },
  });
}

export type TaskReconcilerActivities = ReturnType<typeof createTaskReconcilerActivities>;
