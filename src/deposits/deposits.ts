// Deposit rows and their credit. A deposit is one USDC transfer to an agent's address, keyed by its place among the
// receipt's USDC transfers (chain, tx, transfer index), which a reorganisation does not change as it does the log
// index: a transaction paying several agents is several deposits, each credited once (`deposit:<chain>:<tx>#<index>`).
import type { UsdcTransfer } from '../chain/deposit-inspection.ts';
import type { PrismaClient } from '../db/prisma.ts';
import type { Chain } from '../domain/values.ts';
import type { Deposit, Prisma } from '../generated/prisma/client.ts';
import { derivedId } from '../domain/ids.ts';
import { metrics, microsValue } from '../metrics/metrics.ts';
import { credit } from '../ledger/ledger.ts';

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

export const depositIdOf = ({ chain, txHash }: DepositRef, transferIndex: number) =>
  derivedId('dep', `${chain}:${txHash}#${transferIndex}`);

/** The transaction's agents, each once, in the order they were paid. */
export const depositAccounts = (transfers: AgentTransfer[]) => [...new Set(transfers.map((t) => t.accountId))];

/**
 * The transfers with their index. A workflow that inspected the transaction before transfers had one passes them
 * without: each takes its rank among them, as the rows written then did.
 */
const indexed = (facts: DepositFacts) =>
  facts.transfers.map((transfer, rank) => ({
    ...transfer,
    transferIndex: (transfer as Partial<AgentTransfer>).transferIndex ?? rank,
  }));

const rowKey = (facts: DepositRef, transferIndex: number) => ({
  chain_txHash_transferIndex: { chain: facts.chain, txHash: facts.txHash, transferIndex },
});

/**
 * Writes each transfer as seen now (`pending`, then `confirmed`). A credited one is left as it is; a rejected one
 * (dropped in a reorganisation) is seen again, since the same transaction may be mined later. A row of a transfer
 * the transaction no longer makes (mined again after a reorganisation, it ran differently) is rejected as dropped.
 */
export async function recordDeposit(prisma: PrismaClient, facts: DepositFacts, status: 'pending' | 'confirmed') {
  const transfers = indexed(facts);
  await prisma.$transaction(async (tx) => {
    for (const transfer of transfers) {
      const seen = {
        accountId: transfer.accountId,
        amount: BigInt(transfer.amount),
        blockNumber: BigInt(facts.blockNumber),
        logIndex: transfer.logIndex,
        fromAddress: transfer.from,
        toAddress: transfer.to,
        status,
        reason: null,
      };
      const existing = await tx.deposit.findUnique({ where: rowKey(facts, transfer.transferIndex) });
      if (existing?.status === 'credited') continue;
      if (existing) await tx.deposit.update({ where: { id: existing.id }, data: seen });
      else {
        const id = depositIdOf(facts, transfer.transferIndex);
        const key = { chain: facts.chain, txHash: facts.txHash, transferIndex: transfer.transferIndex };
        await tx.deposit.create({ data: { id, ...key, ...seen } });
      }
    }
    await tx.deposit.updateMany({
      where: {
        chain: facts.chain,
        txHash: facts.txHash,
        transferIndex: { notIn: transfers.map((transfer) => transfer.transferIndex) },
        status: { in: ['pending', 'confirmed'] },
      },
      data: { status: 'rejected', reason: 'dropped' },
    });
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
    for (const transfer of indexed(facts)) {
      if (!(await creditedUnderLogIndex(tx, facts, transfer))) {
        const entry = await credit(
          { tx },
          {
            accountId: transfer.accountId,
            amount: BigInt(transfer.amount),
            kind: 'deposit',
            idempotencyKey: `deposit:${facts.chain}:${facts.txHash}#${transfer.transferIndex}`,
            memo: `USDC deposit on ${facts.chain}`,
          },
        );
        if (entry.applied) {
          creditedMicros += entry.amount;
          creditedCount += 1;
        }
      }
      const row = await tx.deposit.findUniqueOrThrow({ where: rowKey(facts, transfer.transferIndex) });
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

/**
 * Whether the transfer was credited before deposits were keyed by transfer index, under the ledger key of its log
 * index (`deposit:<chain>:<tx>:<log index>`): the chain that confirmed it gives it the same log index again.
 */
async function creditedUnderLogIndex(
  tx: Prisma.TransactionClient,
  facts: DepositRef,
  transfer: AgentTransfer,
): Promise<boolean> {
  const idempotencyKey = `deposit:${facts.chain}:${facts.txHash}:${transfer.logIndex}`;
  return (await tx.ledgerEntry.count({ where: { idempotencyKey, accountId: transfer.accountId } })) > 0;
}
