// Deposit rows and their credit. A deposit is one USDC transfer log to an agent's address (chain, tx, log index):
// a transaction paying several agents is several deposits, each credited once (`deposit:<chain>:<tx>:<log index>`).
import type { UsdcTransfer } from '../../chain/deposit-inspection.ts';
import type { PrismaClient } from '../../db/prisma.ts';
import type { Chain } from '../../domain/values.ts';
import type { Deposit } from '../../generated/prisma/client.ts';
import { derivedId } from '../../domain/ids.ts';
import { metrics, microsValue } from '../../metrics/metrics.ts';
import { credit } from '../ledger.ts';

export type DepositStatus = 'pending' | 'confirmed' | 'credited' | 'rejected';

export interface DepositRef {
  chain: Chain;
  /** Lowercase 0x-prefixed hash. */
  txHash: string;
}

/** One USDC transfer of the transaction to an agent's deposit address. */
export type AgentTransfer = UsdcTransfer & { accountId: string };

export interface DepositFacts extends DepositRef {
  /** Every transfer of the transaction to one of our agents, in log order. */
  transfers: AgentTransfer[];
  blockNumber: string;
}

export const depositIdOf = ({ chain, txHash }: DepositRef, logIndex: number) =>
  derivedId('dep', `${chain}:${txHash}:${logIndex}`);

/** The transaction's agents, each once, in the order they were paid. */
export const depositAccounts = (transfers: AgentTransfer[]) => [...new Set(transfers.map((t) => t.accountId))];

const rowKey = (facts: DepositRef, logIndex: number) => ({
  chain_txHash_logIndex: { chain: facts.chain, txHash: facts.txHash, logIndex },
});

/**
 * Writes each transfer as seen now (`pending`, then `confirmed`). A credited one is left as it is; a rejected one
 * (dropped in a reorganisation) is seen again, since the same transaction may be mined later.
 */
export async function recordDeposit(prisma: PrismaClient, facts: DepositFacts, status: 'pending' | 'confirmed') {
  await prisma.$transaction(async (tx) => {
    for (const transfer of facts.transfers) {
      const seen = {
        accountId: transfer.accountId,
        amount: BigInt(transfer.amount),
        blockNumber: BigInt(facts.blockNumber),
        fromAddress: transfer.from,
        toAddress: transfer.to,
        status,
        reason: null,
      };
      const existing = await tx.deposit.findUnique({ where: rowKey(facts, transfer.logIndex) });
      if (existing?.status === 'credited') continue;
      if (existing) await tx.deposit.update({ where: { id: existing.id }, data: seen });
      else {
        const id = depositIdOf(facts, transfer.logIndex);
        const key = { chain: facts.chain, txHash: facts.txHash, logIndex: transfer.logIndex };
        await tx.deposit.create({ data: { id, ...key, ...seen } });
      }
    }
  });
}

/** What one agent received in the transaction, once credited. */
export interface AccountCredit {
  accountId: string;
  deposits: Deposit[];
  /** The sum of its transfers, micro-USD. */
  amount: bigint;
  /** The account's balance right after the credit (reservations included, as `balance` is shown), micro-USD. */
  balanceAfter: bigint;
}

/** Credits every transfer and marks each credited, in one transaction; a repeat credits nothing. */
export async function creditDeposit(prisma: PrismaClient, facts: DepositFacts): Promise<AccountCredit[]> {
  let creditedMicros = 0n;
  let creditedCount = 0;
  const credited = await prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM deposits WHERE chain = ${facts.chain} AND tx_hash = ${facts.txHash} FOR UPDATE`;
    const rows: Deposit[] = [];
    for (const transfer of facts.transfers) {
      const entry = await credit(
        { tx },
        {
          accountId: transfer.accountId,
          amount: BigInt(transfer.amount),
          kind: 'deposit',
          idempotencyKey: `deposit:${facts.chain}:${facts.txHash}:${transfer.logIndex}`,
          memo: `USDC deposit on ${facts.chain}`,
        },
      );
      if (entry.applied) {
        creditedMicros += entry.amount;
        creditedCount += 1;
      }
      const row = await tx.deposit.findUniqueOrThrow({ where: rowKey(facts, transfer.logIndex) });
      const creditedAt = row.creditedAt ?? new Date();
      rows.push(
        await tx.deposit.update({ where: { id: row.id }, data: { status: 'credited', creditedAt, reason: null } }),
      );
    }
    const credits: AccountCredit[] = [];
    for (const accountId of depositAccounts(facts.transfers)) {
      const deposits = rows.filter((row) => row.accountId === accountId);
      const balance = await tx.balance.findUniqueOrThrow({ where: { accountId } });
      const amount = deposits.reduce((sum, row) => sum + (row.amount ?? 0n), 0n);
      credits.push({ accountId, deposits, amount, balanceAfter: balance.balance });
    }
    return credits;
  });
  // After the commit, and only when this call moved money: a repeat finds every entry and credits nothing.
  if (creditedMicros > 0n) {
    metrics.depositsCredited.inc({ chain: facts.chain }, creditedCount);
    metrics.depositsCreditedMicros.inc({ chain: facts.chain }, microsValue(creditedMicros));
  }
  return credited;
}

/** Marks the transaction's recorded deposits rejected with a reason; a credited one stays credited. */
export async function rejectDeposit(prisma: PrismaClient, ref: DepositRef, reason: string): Promise<void> {
  await prisma.deposit.updateMany({
    where: { chain: ref.chain, txHash: ref.txHash, status: { not: 'credited' } },
    data: { status: 'rejected', reason },
  });
}
