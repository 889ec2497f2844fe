// The api's and the reconciler's side of a top-up's workflow (`topup:<id>`): start it, or join the one that runs.
import type { Client } from '@temporalio/client';
import type { X402TopUp } from '../../generated/prisma/client.ts';
import { type TopUpWorkflow, topUpWorkflowId } from '../../../workflows/contracts/top-up.types.ts';
import { startOrJoin } from './start-or-join.ts';

/**
 * Starts the top-up's workflow unless one runs. `ALLOW_DUPLICATE_FAILED_ONLY`: the api's, a run that settled or
 * failed it stands; `ALLOW_DUPLICATE`: the reconciler's, for a row still unsettled whatever a closed run did (settling
 * again finds the earlier transfer on chain, and the ledger's key credits it once).
 */
export async function startTopUpWorkflow(
  temporal: { client: Client; taskQueue: string },
  topUp: Pick<X402TopUp, 'id' | 'accountId' | 'payer' | 'network'>,
  reuse: 'ALLOW_DUPLICATE_FAILED_ONLY' | 'ALLOW_DUPLICATE',
): Promise<string> {
  const workflowId = topUpWorkflowId(topUp.id);
  await startOrJoin<TopUpWorkflow>(temporal.client, 'topUpWorkflow', {
    workflowId,
    taskQueue: temporal.taskQueue,
    args: [{ topUpId: topUp.id }],
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: reuse,
    staticSummary: `x402 top-up of ${topUp.accountId} by ${topUp.payer} on ${topUp.network}`,
  });
  return workflowId;
}
