// One pass of the upload expiry sweep, started by its Temporal Schedule: deletes expired uploads' files and marks
// their rows, a page at a time; the ids deleted are its result in the Web UI.
import { proxyActivities } from '@temporalio/workflow';
import type { UploadActivities } from '../activities/upload.activities.ts';
import type { UploadExpiryInput, UploadExpiryReport } from './upload-expiry.types.ts';

// The next scheduled run takes over from one that gave up.
const { deleteExpiredUploads } = proxyActivities<UploadActivities>({
  startToCloseTimeout: '2 minutes',
  scheduleToCloseTimeout: '10 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export async function uploadExpiryWorkflow(input: UploadExpiryInput): Promise<UploadExpiryReport> {
  const deleted: string[] = [];
  for (let page = 0; page < input.maxPages; page += 1) {
    const pass = await deleteExpiredUploads({ limit: input.limit });
    deleted.push(...pass.deleted);
    if (pass.deleted.length < input.limit) break;
  }
  return { deleted };
}
