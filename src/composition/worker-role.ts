// The worker role: the workers on the shared services, and the schedules they serve.
import { Client, Connection } from '@temporalio/client';
import { enabledChains } from '../chain/settings.ts';
import type { Config } from '../config/config.ts';
import type { Logger } from '../infra/logger.ts';
import type { Stop } from '../infra/processes/stops.ts';
import { ensureDepositScanSchedules } from '../use-cases/temporal/deposit-scan-schedules.ts';
import { ensureTaskReconcilerSchedule } from '../use-cases/generations/task-reconciler.ts';
import { ensureOAuthSweepSchedule } from '../use-cases/temporal/oauth-sweep-schedule.ts';
import { ensureOutputExpirySchedule } from '../use-cases/temporal/output-expiry-schedule.ts';
import { connectOptions } from '../use-cases/temporal/connection.ts';
import { ensureUploadExpirySchedule } from '../use-cases/temporal/upload-expiry-schedule.ts';
import { startWorker } from '../worker.ts';
import type { SharedServices } from './shared-services.ts';

/** Runs the workers, pushing their stop onto `stops`; returns the banner lines. */
export async function startWorkerRole(services: SharedServices, stops: Stop[]): Promise<string[]> {
  const { config } = services;
  const worker = startWorker(services);
  stops.push({ name: 'worker', stop: worker.stop });
  return [
    `Worker        task queues ${config.temporal.taskQueue} (providers: ${config.temporal.taskQueue}-<provider>)`,
    ...(await startSchedules(config, services.logger, stops)),
  ];
}

/**
 * The worker's schedules: the task reconciler, upload and output expiry, the OAuth sweep, and the deposit watcher's, one per enabled
 * chain. Without Temporal now, the next start makes them.
 */
async function startSchedules(config: Config, logger: Logger, stops: Stop[]) {
  try {
    const connection = await Connection.connect(connectOptions(config.temporal));
    stops.push({ name: 'deposit watcher connection', stop: () => connection.close() });
    const client = new Client({ connection, namespace: config.temporal.namespace });
    const reconciler = await ensureTaskReconcilerSchedule(client, config);
    const uploadExpiry = await ensureUploadExpirySchedule(client, config);
    const outputExpiry = await ensureOutputExpirySchedule(client, config);
    const oauthSweep = await ensureOAuthSweepSchedule(client, config);
    const { retentionDays, expiryIntervalSeconds } = config.outputs;
    const banner = [
      `Reconciler    ${reconciler}: every ${config.reconciler.intervalSeconds} s, tasks queued over ${config.reconciler.afterSeconds} s are run or refunded`,
      `Uploads       ${uploadExpiry}: every ${config.uploads.expiryIntervalSeconds} s, expired uploads are deleted`,
      retentionDays > 0
        ? `Outputs       ${outputExpiry}: every ${expiryIntervalSeconds} s, outputs of tasks ended over ${retentionDays} days ago are deleted`
        : `Outputs       kept forever (OUTPUT_RETENTION_DAYS=0)`,
      `OAuth         ${oauthSweep}: every ${config.oauth.sweepIntervalSeconds} s, expired codes and tokens are deleted, unredeemed grants revoked`,
    ];
    if (enabledChains(config.chains).length === 0) return banner;
    const schedules = await ensureDepositScanSchedules(client, config);
    return [
      ...banner,
      `Watcher       ${schedules.join(', ')}: new USDC transfers to agents every ${config.deposits.scanIntervalSeconds} s`,
    ];
  } catch (error) {
    logger.warn(
      { err: error },
      'the schedules could not be made (task reconciler, upload and output expiry, OAuth sweep, deposit watcher); the next start makes them',
    );
    return [];
  }
}
