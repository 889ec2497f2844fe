// Uploads expire: a Temporal Schedule runs uploadExpiryWorkflow every UPLOAD_EXPIRY_INTERVAL_SECONDS, which deletes
// the files of uploads past their `expires_at` and marks them deleted (reads answer 404 from expiry on regardless).
import type { Client } from '@temporalio/client';
import type { UploadExpiryWorkflow } from '../../../workflows/contracts/upload-expiry.types.ts';
import type { Config } from '../../config/config.ts';
import { ensureIntervalSchedule } from './schedules.ts';

export const uploadExpiryScheduleId = 'upload-expiry';

export async function ensureUploadExpirySchedule(
  client: Client,
  config: Pick<Config, 'uploads' | 'temporal'>,
): Promise<string> {
  return ensureIntervalSchedule<UploadExpiryWorkflow>(client, {
    scheduleId: uploadExpiryScheduleId,
    workflowType: 'uploadExpiryWorkflow',
    everySeconds: config.uploads.expiryIntervalSeconds,
    args: [{ limit: 200, maxPages: 20 }],
    taskQueue: config.temporal.taskQueue,
  });
}
