// One workflow per x402 top-up (workflow id `topup:<id>`): the payment settles and the balance is credited even if the
// api process that took the payment dies; retried with backoff for as long as the authorization can still settle.
import { proxyActivities } from '@temporalio/workflow';
import type { TopUpActivities } from '../activities/top-up.activities.ts';
import type { TopUpInput, TopUpResult } from './contracts/top-up.types.ts';

const { settleTopUp } = proxyActivities<TopUpActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '15 seconds',
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export async function topUpWorkflow(input: TopUpInput): Promise<TopUpResult> {
  return settleTopUp(input);
}
