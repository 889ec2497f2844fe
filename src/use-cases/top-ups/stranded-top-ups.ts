// Top-ups whose payment was kept but that never settled nor failed: the api process died before starting their
// workflow, or the workflow gave up (the chain or the facilitator away for its whole hour). The task reconciler starts
// each one's workflow again, which settles it (a transfer made before is found on chain) or fails it; either way the
// ledger's key for the top-up credits it at most once.
import type { Client } from '@temporalio/client';
import type { PrismaClient } from '../../db/prisma.ts';
import { findUnsettledTopUps } from '../../payments/methods/x402/top-up-settlement.ts';
import { topUpWorkflowId } from '../../../workflows/contracts/top-up.types.ts';
import type { ResumedTopUp } from '../../../workflows/contracts/task-reconciler.types.ts';
import { workflowStatus } from '../temporal/workflow-status.ts';
import { startTopUpWorkflow } from '../temporal/top-up-workflows.ts';

/** Starts the workflow of each top-up unsettled since before `createdBefore` whose workflow is not running. */
export async function resumeStrandedTopUps(
  deps: { prisma: PrismaClient; client: Client; taskQueue: string },
  input: { createdBefore: Date; limit: number },
): Promise<ResumedTopUp[]> {
  const topUps = await findUnsettledTopUps(deps.prisma, input);
  const resumed = await Promise.all(
    topUps.map(async (topUp): Promise<ResumedTopUp | null> => {
      const workflow = await workflowStatus(deps.client, topUpWorkflowId(topUp.id));
      if (workflow === 'RUNNING') return null;
      await startTopUpWorkflow(deps, topUp, 'ALLOW_DUPLICATE');
      return { topUpId: topUp.id, workflow };
    }),
  );
  return resumed.filter((each) => each !== null);
}
