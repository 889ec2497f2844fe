// One pass of the task reconciler, started by its Temporal Schedule: the report (what was repaired) is its result.
import { proxyActivities } from '@temporalio/workflow';
import type { TaskReconcilerActivities } from '../activities/task-reconciler.activities.ts';
import type { ReconcileInput, ReconcileReport } from './contracts/task-reconciler.types.ts';

// The next scheduled run takes over from one that gave up.
const { reconcileQueuedTasks, releaseClosedTasks } = proxyActivities<TaskReconcilerActivities>({
  startToCloseTimeout: '2 minutes',
  scheduleToCloseTimeout: '10 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export async function taskReconcilerWorkflow(input: ReconcileInput): Promise<ReconcileReport> {
  const queued = await reconcileQueuedTasks(input);
  const closed = await releaseClosedTasks(input);
  return { ...closed, checked: queued.checked + closed.checked, repairs: [...queued.repairs, ...closed.repairs] };
}
