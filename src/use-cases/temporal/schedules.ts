// Temporal Schedules the service keeps: made at start, updated when the configuration changed.
import { type Client, ScheduleAlreadyRunning, type ScheduleOptions } from '@temporalio/client';
import type { Workflow } from '@temporalio/common';

export async function ensureSchedule(client: Client, options: ScheduleOptions): Promise<string> {
  try {
    await client.schedule.create(options);
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await client.schedule
      .getHandle(options.scheduleId)
      .update((previous) => ({ ...previous, spec: options.spec, action: options.action }));
  }
  return options.scheduleId;
}

/** A schedule that starts one workflow (its id the schedule's) every `everySeconds`, skipped while one still runs. */
export function ensureIntervalSchedule<W extends Workflow>(
  client: Client,
  schedule: {
    scheduleId: string;
    workflowType: string;
    everySeconds: number;
    args: Parameters<W>;
    taskQueue: string;
  },
): Promise<string> {
  return ensureSchedule(client, {
    scheduleId: schedule.scheduleId,
    spec: { intervals: [{ every: `${schedule.everySeconds} seconds` }] },
    action: {
      type: 'startWorkflow',
      workflowType: schedule.workflowType,
      workflowId: schedule.scheduleId,
      args: schedule.args,
      taskQueue: schedule.taskQueue,
    },
    policies: { overlap: 'SKIP' },
  });
}
