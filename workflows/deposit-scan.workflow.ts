// One scan of a chain for deposits nobody reported, started by the chain's Temporal Schedule.
import { proxyActivities } from '@temporalio/workflow';
import type { DepositActivities } from '../activities/deposit.activities.ts';
import type { DepositScanInput, DepositScanReport } from './contracts/deposit.types.ts';

// The next scheduled scan takes over from a run that gave up: an hour of retries is plenty for one.
const { scanDeposits } = proxyActivities<DepositActivities>({
  startToCloseTimeout: '2 minutes',
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export async function depositScanWorkflow(input: DepositScanInput): Promise<DepositScanReport> {
  return scanDeposits(input);
}
