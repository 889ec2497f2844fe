// One pass of the output retention sweep, started by its Temporal Schedule: deletes the stored files of tasks that
// ended more than OUTPUT_RETENTION_DAYS ago and marks them, a page at a time; the task ids are its result in the Web UI.
import { proxyActivities } from '@temporalio/workflow';
import type { OutputActivities } from '../../activities/output.activities.ts';
import type { OutputExpiryInput, OutputExpiryReport } from '../contracts/output-expiry.types.ts';
import { sweepActivityOptions, sweepPages } from './sweep-pages.ts';

const { deleteExpiredOutputs } = proxyActivities<OutputActivities>(sweepActivityOptions);

export function outputExpiryWorkflow(input: OutputExpiryInput): Promise<OutputExpiryReport> {
  return sweepPages(deleteExpiredOutputs, input);
}
