// Temporal Schedules the service keeps: made at start, updated when the configuration changed.
import { type Client, ScheduleAlreadyRunning, type ScheduleOptions } from '@temporalio/client';

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
