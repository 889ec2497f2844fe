// Outputs expire: a Temporal Schedule runs outputExpiryWorkflow every OUTPUT_EXPIRY_INTERVAL_SECONDS, which deletes
// the stored files of tasks that ended more than OUTPUT_RETENTION_DAYS ago (links answer 410 from expiry on
// regardless). It runs with a retention of 0 too, and deletes nothing: setting one later needs no new schedule.
import type { Client } from '@temporalio/client';
import type { OutputExpiryWorkflow } from '../../../workflows/contracts/output-expiry.types.ts';
import type { Config } from '../../config/config.ts';
import { ensureIntervalSchedule } from './schedules.ts';

export const outputExpiryScheduleId = 'output-expiry';

export async function ensureOutputExpirySchedule(
  client: Client,
  config: Pick<Config, 'outputs' | 'temporal'>,
): Promise<string> {
  return ensureIntervalSchedule<OutputExpiryWorkflow>(client, {
    scheduleId: outputExpiryScheduleId,
    workflowType: 'outputExpiryWorkflow',
    everySeconds: config.outputs.expiryIntervalSeconds,
    args: [{ limit: 200, maxPages: 20 }],
    taskQueue: config.temporal.taskQueue,
  });
}
