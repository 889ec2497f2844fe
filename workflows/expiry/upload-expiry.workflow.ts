// One pass of the upload expiry sweep, started by its Temporal Schedule: deletes expired uploads' files and marks
// their rows, a page at a time; the ids deleted are its result in the Web UI.
import { proxyActivities } from '@temporalio/workflow';
import type { UploadActivities } from '../../activities/upload.activities.ts';
import { sweepActivityOptions, sweepPages } from './sweep-pages.ts';
import type { UploadExpiryInput, UploadExpiryReport } from '../contracts/upload-expiry.types.ts';

const { deleteExpiredUploads } = proxyActivities<UploadActivities>(sweepActivityOptions);

export function uploadExpiryWorkflow(input: UploadExpiryInput): Promise<UploadExpiryReport> {
  return sweepPages(deleteExpiredUploads, input);
}
