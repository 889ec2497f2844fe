// The task reconciler's activity: a thin wrapper over src/temporal/task-reconciler, with the worker's client.
import { Context } from '@temporalio/activity';
import type { Config } from '../src/config.ts';
import type { PrismaClient } from '../src/db/prisma.ts';
import { reconcileQueuedTasks } from '../src/temporal/task-reconciler.ts';
import type { ReconcileInput, ReconcileReport } from '../workflows/task-reconciler.types.ts';
import { classifyFailures } from './failures.ts';

export interface TaskReconcilerActivityDeps {
  prisma: PrismaClient;
  config: Config;
}

export function createTaskReconcilerActivities(deps: TaskReconcilerActivityDeps) {
  return classifyFailures({
    async reconcileQueuedTasks(input: ReconcileInput): Promise<ReconcileReport> {
      const { client, log } = Context.current();
      const report = await reconcileQueuedTasks(
        { prisma: deps.prisma, client, webhookTaskQueue: deps.config.TEMPORAL_WEBHOOK_TASK_QUEUE },
        input,
      );
      for (const repair of report.repairs) {
        const level = repair.action === 'unanswered' ? 'warn' : 'info';
        log[level](`task reconciler: ${repair.taskId} ${repair.action}`, { ...repair });
      }
      return report;
    },
  });
}

export type TaskReconcilerActivities = ReturnType<typeof createTaskReconcilerActivities>;
