// One Temporal Schedule per enabled chain runs the deposit watcher (depositScanWorkflow) every few seconds;
// operators see, pause and trigger it in the Web UI. Made at start, updated when the configuration changed.
import type { Client, ScheduleOptions, ScheduleOptionsStartWorkflowAction } from '@temporalio/client';
import { enabledChains } from '../../chain/settings.ts';
import type { Config } from '../../config/config.ts';
import type { DepositScanWorkflow } from '../../../workflows/contracts/deposit.types.ts';
import { ensureSchedule } from './schedules.ts';

export const depositScanScheduleId = (chain: string) => `deposit-scan:${chain}`;

export async function ensureDepositScanSchedules(
  client: Client,
  config: Pick<Config, 'chains' | 'deposits' | 'temporal'>,
): Promise<string[]> {
  const ids: string[] = [];
  for (const { chain } of enabledChains(config.chains)) {
    const scheduleId = depositScanScheduleId(chain);
    const options = {
      scheduleId,
      spec: { intervals: [{ every: `${config.deposits.scanIntervalSeconds} seconds` }] },
      action: {
        type: 'startWorkflow' as const,
        workflowType: 'depositScanWorkflow',
        workflowId: scheduleId,
        args: [{ chain }],
        taskQueue: config.temporal.taskQueue,
      },
      // A scan still running when the next is due makes that one wait its turn, not run beside it.
      policies: { overlap: 'SKIP' as const },
    } satisfies ScheduleOptions<ScheduleOptionsStartWorkflowAction<DepositScanWorkflow>>;
    ids.push(await ensureSchedule(client, options));
  }
  return ids;
}
