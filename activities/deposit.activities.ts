// Activities of the deposit workflow: reads of the chain (viem) and the deposit's rows and credit (src/payments/deposits).
// An RPC failure is a plain error, retried with backoff by the workflow's policy; it never rejects a deposit.
import { Context } from '@temporalio/activity';
import type { Hex } from 'viem';
import { headBlock, inspectTransaction, type UsdcTransfer } from '../src/chain/deposit-inspection.ts';
import { type ChainSettings, chainSettings } from '../src/chain/settings.ts';
import type { Config } from '../src/config/config.ts';
import type { PrismaClient } from '../src/db/prisma.ts';
import type { Chain } from '../src/domain/values.ts';
import { agentsByDepositAddress } from '../src/payments/deposits/addresses.ts';
import {
  creditDeposit,
  type DepositFacts,
  type DepositRef,
  recordDeposit,
  rejectDeposit,
} from '../src/payments/deposits/deposits.ts';
import { formatUsd } from '../src/domain/money.ts';
import { type CreditedDepositView, depositView } from '../src/payments/deposits/view.ts';
import { advanceScanCursor, agentDepositsIn, nextScanWindow } from '../src/payments/deposits/scan.ts';
import { startDepositWorkflow } from '../src/orchestration/deposits/workflow-client.ts';
import { refusal } from './refusal.ts';
import { classifyFailures } from './failures.ts';

export interface DepositActivityDeps {
  prisma: PrismaClient;
  config: Pick<Config, 'chains' | 'deposits' | 'temporal'>;
}

/** What the workflow learns from one look at the transaction. */
export type DepositInspection =
  | { kind: 'missing'; pending: boolean }
  | { kind: 'reverted' }
  | { kind: 'wrong_token' }
  | { kind: 'wrong_recipient' }
  | { kind: 'mined'; blockNumber: string; blockHash: string; accountId: string; transfers: UsdcTransfer[] };

export interface Confirmations {
  confirmations: number;
  required: number;
  /** How long to wait before looking again: about a block's time. */
  pollIntervalMs: number;
}

/** Roughly how often each chain makes a block, to pace the wait for confirmations. */
const blockTimeMs: Record<Chain, number> = { base: 2_000, polygon: 2_000, ethereum: 12_000 };

export function createDepositActivities(deps: DepositActivityDeps) {
  const settingsOf = (chain: Chain): ChainSettings => {
    const settings = chainSettings(deps.config.chains, chain);
    if (!settings) throw refusal(`deposits on ${chain} are not enabled on this server`);
    return settings;
  };

  return classifyFailures({
    /** The transaction's USDC transfers to one agent's address, or why it is not a deposit. */
    async inspectDeposit(ref: DepositRef): Promise<DepositInspection> {
      const inspection = await inspectTransaction(settingsOf(ref.chain), ref.txHash as Hex);
      if (inspection.kind !== 'mined') return inspection.kind === 'missing' ? inspection : { kind: 'reverted' };
      if (inspection.usdcTransfers.length === 0) {
        return { kind: inspection.otherTokenTransfer ? 'wrong_token' : 'wrong_recipient' };
      }
      // One deposit is credited to one agent: the first paid; transfers to anyone else in it are not ours.
      const agents = await agentsByDepositAddress(
        deps.prisma,
        inspection.usdcTransfers.map((transfer) => transfer.to),
      );
      const paid = inspection.usdcTransfers.find((transfer) => agents.has(transfer.to));
      const accountId = paid && agents.get(paid.to);
      if (!paid || !accountId) return { kind: 'wrong_recipient' };
      const transfers = inspection.usdcTransfers.filter((transfer) => transfer.to === paid.to);
      return {
        kind: 'mined',
        blockNumber: inspection.blockNumber,
        blockHash: inspection.blockHash,
        accountId,
        transfers,
      };
    },

    async depositConfirmations(input: { chain: Chain; blockNumber: string }): Promise<Confirmations> {
      const settings = settingsOf(input.chain);
      const head = await headBlock(settings);
      const confirmations = Math.max(0, Number(head - BigInt(input.blockNumber) + 1n));
      const blockTime = settings.local ? deps.config.chains.local.blockTimeSeconds * 1000 : blockTimeMs[input.chain];
      return { confirmations, required: settings.confirmations, pollIntervalMs: blockTime };
    },

    async recordDeposit(input: { facts: DepositFacts; status: 'pending' | 'confirmed' }): Promise<void> {
      await recordDeposit(deps.prisma, input.facts, input.status);
    },

    async creditDeposit(facts: DepositFacts): Promise<CreditedDepositView> {
      const { deposit, balanceAfter } = await creditDeposit(deps.prisma, facts);
      return { ...depositView(deposit), new_balance: formatUsd(balanceAfter) };
    },

    /** Reads the chain's next blocks and starts the deposit workflow of every transfer to an agent. */
    async scanDeposits(input: {
      chain: Chain;
    }): Promise<{ fromBlock: string; toBlock: string; started: number } | null> {
      const settings = settingsOf(input.chain);
      const limits = {
        lookbackBlocks: deps.config.deposits.scanLookbackBlocks,
        maxBlocks: deps.config.deposits.scanMaxBlocks,
      };
      const window = await nextScanWindow(deps.prisma, settings, limits);
      if (!window) return null;
      const hashes = await agentDepositsIn(deps.prisma, settings, window);
      const temporal = { client: Context.current().client, taskQueue: deps.config.temporal.taskQueue };
      for (const txHash of hashes) {
        await startDepositWorkflow(temporal, {
          chain: input.chain,
          txHash,
          receiptWaitSeconds: deps.config.deposits.receiptWaitSeconds,
        });
      }
      await advanceScanCursor(deps.prisma, input.chain, window);
      return { fromBlock: `${window.fromBlock}`, toBlock: `${window.toBlock}`, started: hashes.length };
    },

    async rejectDeposit(input: { ref: DepositRef; reason: string }): Promise<void> {
      await rejectDeposit(deps.prisma, input.ref, input.reason);
    },
  });
}

export type DepositActivities = ReturnType<typeof createDepositActivities>;
