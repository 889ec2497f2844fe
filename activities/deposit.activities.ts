// Activities of the deposit workflow: reads of the chain (viem) and the deposit's rows and credit (src/deposits).
// An RPC failure is a plain error, retried with backoff by the workflow's policy; it never rejects a deposit.
import { Context } from '@temporalio/activity';
import type { Hex } from 'viem';
import { headBlock, inspectTransaction } from '../src/chain/deposit-inspection.ts';
import { type ChainSettings, chainSettings } from '../src/chain/settings.ts';
import type { Config } from '../src/config/config.ts';
import type { PrismaClient } from '../src/db/prisma.ts';
import type { Chain } from '../src/domain/values.ts';
import { agentsByDepositAddress } from '../src/deposits/addresses.ts';
import {
  type AgentTransfer,
  creditDeposit,
  type DepositFacts,
  type DepositRef,
  recordDeposit,
  rejectDeposit,
} from '../src/deposits/deposits.ts';
import { type AccountCreditView, accountCreditView } from '../src/deposits/view.ts';
import { advanceScanCursor, agentDepositsIn, nextScanWindow } from '../src/deposits/scan.ts';
import type { DepositScanInput, DepositScanReport } from '../workflows/contracts/deposit.types.ts';
import { refusal } from './refusal.ts';
import { classifyFailures } from './failures.ts';
import type { WorkflowStarter } from './workflow-starter.ts';

export interface DepositActivityDeps {
  prisma: PrismaClient;
  config: Pick<Config, 'chains' | 'deposits'>;
  starter: Pick<WorkflowStarter, 'startDeposit'>;
}

/** What the workflow learns from one look at the transaction. */
export type DepositInspection =
  | { kind: 'missing'; pending: boolean }
  | { kind: 'reverted' }
  | { kind: 'wrong_token' }
  | { kind: 'wrong_recipient' }
  | { kind: 'mined'; blockNumber: string; blockHash: string; transfers: AgentTransfer[] };

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
    /** The transaction's USDC transfers to our agents' addresses (each its own deposit), or why it is not a deposit. */
    async inspectDeposit(ref: DepositRef): Promise<DepositInspection> {
      const inspection = await inspectTransaction(settingsOf(ref.chain), ref.txHash as Hex);
      if (inspection.kind !== 'mined') return inspection.kind === 'missing' ? inspection : { kind: 'reverted' };
      if (inspection.usdcTransfers.length === 0) {
        return { kind: inspection.otherTokenTransfer ? 'wrong_token' : 'wrong_recipient' };
      }
      const agents = await agentsByDepositAddress(
        deps.prisma,
        inspection.usdcTransfers.map((transfer) => transfer.to),
      );
      // A multisend or a batch may pay several agents: every transfer to one of ours is credited; others are not ours.
      const transfers = inspection.usdcTransfers.flatMap((transfer) => {
        const accountId = agents.get(transfer.to);
        return accountId ? [{ ...transfer, accountId }] : [];
      });
      if (transfers.length === 0) return { kind: 'wrong_recipient' };
      return { kind: 'mined', blockNumber: inspection.blockNumber, blockHash: inspection.blockHash, transfers };
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

    /** Credits every transfer; one answer per agent paid. */
    async creditDeposit(facts: DepositFacts): Promise<AccountCreditView[]> {
      return (await creditDeposit(deps.prisma, facts)).map(accountCreditView);
    },

    /** Reads the chain's next blocks and starts the deposit workflow of every transfer to an agent. */
    async scanDeposits(input: DepositScanInput): Promise<DepositScanReport> {
      const settings = settingsOf(input.chain);
      const limits = {
        lookbackBlocks: deps.config.deposits.scanLookbackBlocks,
        maxBlocks: deps.config.deposits.scanMaxBlocks,
      };
      const window = await nextScanWindow(deps.prisma, settings, limits);
      if (!window) return null;
      const hashes = await agentDepositsIn(deps.prisma, settings, window);
      const { client } = Context.current();
      for (const txHash of hashes) {
        await deps.starter.startDeposit(client, {
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
