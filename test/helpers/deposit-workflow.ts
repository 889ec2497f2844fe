// The deposit workflow on a time-skipping server: the real database activities (deposit rows, the ledger credit,
// webhooks) and a scripted chain, typed as the real chain-reading activities, to drive each path of the wait.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createDepositActivities, type DepositActivities } from '../../activities/deposit.activities.ts';
import { createWebhookActivities } from '../../activities/webhook.activities.ts';
import { loadConfig } from '../../src/config/config.ts';
import type { DepositInput } from '../../workflows/contracts/deposit.types.ts';
import { depositWorkflow } from '../../workflows/deposit.workflow.ts';
import type { TestDatabase } from './database.ts';
import { uniqueTaskQueue } from './temporal.ts';
import { depositStarter, webhookStarter } from '../../src/use-cases/temporal/worker-starter.ts';

export type ScriptedChain = Pick<DepositActivities, 'inspectDeposit' | 'depositConfirmations'>;

export interface DepositHarnessContext {
  env: TestWorkflowEnvironment;
  database: TestDatabase;
  workflowBundle: WorkflowBundleWithSourceMap;
}

/** A transaction mined at block 100 paying `amount` base units to the account; `required` confirmations. */
export function minedDeposit(accountId: string, amount = 2_500_000n, blockHash = '0xb1') {
  return {
    kind: 'mined' as const,
    blockNumber: '100',
    blockHash,
    transfers: [
      {
        transferIndex: 1,
        logIndex: 3,
        from: '0x00000000000000000000000000000000000000aa',
        to: '0xdeposit',
        amount: `${amount}`,
        accountId,
      },
    ],
  };
}

/** A chain whose head moves one block per look at it, starting at the transaction's block. */
export function advancingChain(accountId: string, required: number): ScriptedChain & { looks: () => number } {
  let looks = 0;
  return {
    looks: () => looks,
    inspectDeposit: async () => minedDeposit(accountId),
    depositConfirmations: async () => ({ confirmations: ++looks, required, pollIntervalMs: 2_000 }),
  };
}

export function depositWorkflowHarness(context: DepositHarnessContext) {
  const input = (txHash: string): DepositInput => ({ chain: 'base', txHash, receiptWaitSeconds: 60 });

  async function run(options: {
    txHash: string;
    chain: ScriptedChain;
    receiptWaitSeconds?: number;
    recheck?: boolean;
  }) {
    const taskQueue = uniqueTaskQueue('deposit');
    const config = loadConfig({ NODE_ENV: 'test' }, []);
    const deps = { prisma: context.database.prisma, config };
    const real = createDepositActivities({ ...deps, starter: depositStarter(deps) });
    const worker = await Worker.create({
      connection: context.env.nativeConnection,
      taskQueue,
      workflowBundle: context.workflowBundle,
      activities: {
        ...real,
        ...options.chain,
        ...createWebhookActivities({ ...deps, starter: webhookStarter(deps) }),
      },
    });
    return worker.runUntil(async () => {
      const handle = await context.env.client.workflow.start(depositWorkflow, {
        taskQueue,
        workflowId: `deposit:base:${options.txHash}`,
        args: [
          {
            ...input(options.txHash),
            receiptWaitSeconds: options.receiptWaitSeconds ?? 60,
            ...(options.recheck ? { recheck: true } : {}),
          },
        ],
      });
      const outcome = await handle.result().then(
        (result) => ({ result, failure: undefined }),
        (failure: unknown) => ({ result: undefined, failure }),
      );
      const { status } = await handle.describe();
      return { ...outcome, status: status.name, history: await handle.fetchHistory() };
    });
  }

  return { run };
}
