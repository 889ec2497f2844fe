// One pass of the output retention sweep, started by its Temporal Schedule: deletes the stored files of tasks that
// ended more than OUTPUT_RETENTION_DAYS ago and marks them, a page at a time; the task ids are its result in the Web UI.
import { proxyActivities } from '@temporalio/workflow';
import type { OutputActivities } from '../activities/output.activities.ts';
import type { OutputExpiryInput, OutputExpiryReport } from './output-expiry.types.ts';

// The next scheduled run takes over from one that gave up.
const { deleteExpiredOutputs } = proxyActivities<OutputActivities>({
  startToCloseTimeout: '2 minutes',
  scheduleToCloseTimeout: '10 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export async function outputExpiryWorkflow(input: OutputExpiryInput): Promise<OutputExpiryReport> {
  const deleted: string[] = [];
  for (let page = 0; page < input.maxPages; page += 1) {
    const pass = await deleteExpiredOutputs({ limit: input.limit });
    deleted.push(...pass.deleted);
    if (pass.deleted.length < input.limit) break;
  }
  return { deleted };
}
