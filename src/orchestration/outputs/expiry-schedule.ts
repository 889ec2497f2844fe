// Outputs expire: a Temporal Schedule runs outputExpiryWorkflow every OUTPUT_EXPIRY_INTERVAL_SECONDS, which deletes
// the stored files of tasks that ended more than OUTPUT_RETENTION_DAYS ago (links answer 410 from expiry on
// regardless). It runs with a retention of 0 too, and deletes nothing: setting one later needs no new schedule.
import type { Client, ScheduleOptions, ScheduleOptionsStartWorkflowAction } from '@temporalio/client';
import type { OutputExpiryWorkflow } from '../../../workflows/contracts/output-expiry.types.ts';
import type { Config } from '../../config/config.ts';
import { ensureSchedule } from '../temporal/schedules.ts';

export const outputExpiryScheduleId = 'output-expiry';

export async function ensureOutputExpirySchedule(
  client: Client,
  config: Pick<Config, 'outputs' | 'temporal'>,
): Promise<string> {
  const options = {
    scheduleId: outputExpiryScheduleId,
    spec: { intervals: [{ every: `${config.outputs.expiryIntervalSeconds} seconds` }] },
    action: {
      type: 'startWorkflow' as const,
      workflowType: 'outputExpiryWorkflow',
      workflowId: outputExpiryScheduleId,
      args: [{ limit: 200, maxPages: 20 }],
      taskQueue: config.temporal.taskQueue,
    },
    policies: { overlap: 'SKIP' as const },
  } satisfies ScheduleOptions<ScheduleOptionsStartWorkflowAction<OutputExpiryWorkflow>>;
  return ensureSchedule(client, options);
}
