// Deposit rows and their credit. A deposit is one transaction on one chain, credited once, to the agent whose
// address its USDC transfers paid; each transfer log is its own ledger entry (`deposit:<chain>:<tx>:<log index>`).
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

export interface DepositFacts extends DepositRef {
  accountId: string;
  transfers: UsdcTransfer[];
  blockNumber: string;
}

export const depositIdOf = ({ chain, txHash }: DepositRef) => derivedId('dep', `${chain}:${txHash}`);

export const depositAmount = (transfers: UsdcTransfer[]) =>
  transfers.reduce((sum, transfer) => sum + BigInt(transfer.amount), 0n);

const settled = (status: string) => status === 'credited' || status === 'rejected';

/** Writes the deposit as seen now (`pending`, then `confirmed`); a settled deposit is left as it is. */
export async function recordDeposit(prisma: PrismaClient, facts: DepositFacts, status: 'pending' | 'confirmed') {
  const [first] = facts.transfers;
  const seen = {
    accountId: facts.accountId,
    amount: depositAmount(facts.transfers),
    blockNumber: BigInt(facts.blockNumber),
    logIndex: first?.logIndex ?? null,
    fromAddress: first?.from ?? null,
    toAddress: first?.to ?? null,
  };
  return prisma.$transaction(async (tx) => {
    const existing = await tx.deposit.findUnique({
      where: { chain_txHash: { chain: facts.chain, txHash: facts.txHash } },
    });
    if (existing && settled(existing.status)) return existing;
    if (existing) return tx.deposit.update({ where: { id: existing.id }, data: { ...seen, status } });
    return tx.deposit.create({
      data: { id: depositIdOf(facts), chain: facts.chain, txHash: facts.txHash, ...seen, status },
    });
  });
}

export interface CreditedDeposit {
  deposit: Deposit;
  /** The account's balance right after the credit (reservations included, as `balance` is shown), micro-USD. */
  balanceAfter: bigint;
}

/** Credits every transfer of the deposit and marks it credited, in one transaction; a repeat credits nothing. */
export async function creditDeposit(prisma: PrismaClient, facts: DepositFacts): Promise<CreditedDeposit> {
  let creditedMicros = 0n;
  const credited = await prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM deposits WHERE chain = ${facts.chain} AND tx_hash = ${facts.txHash} FOR UPDATE`;
    for (const transfer of facts.transfers) {
      const entry = await credit(
        { tx },
        {
          accountId: facts.accountId,
          amount: BigInt(transfer.amount),
          kind: 'deposit',
          idempotencyKey: `deposit:${facts.chain}:${facts.txHash}:${transfer.logIndex}`,
          memo: `USDC deposit on ${facts.chain}`,
        },
      );
      if (entry.applied) creditedMicros += entry.amount;
    }
    const deposit = await tx.deposit.update({
      where: { chain_txHash: { chain: facts.chain, txHash: facts.txHash } },
      data: { status: 'credited', creditedAt: new Date(), reason: null },
    });
    const balance = await tx.balance.findUniqueOrThrow({ where: { accountId: facts.accountId } });
    return { deposit, balanceAfter: balance.balance };
  });
  // After the commit, and only when this call moved money: a repeat finds every entry and credits nothing.
  if (creditedMicros > 0n) {
    metrics.depositsCredited.inc({ chain: facts.chain });
    metrics.depositsCreditedMicros.inc({ chain: facts.chain }, microsValue(creditedMicros));
  }
  return credited;
}

/** Marks a recorded deposit rejected with its reason; a credited one stays credited. */
export async function rejectDeposit(prisma: PrismaClient, ref: DepositRef, reason: string): Promise<void> {
  await prisma.deposit.updateMany({
    where: { chain: ref.chain, txHash: ref.txHash, status: { not: 'credited' } },
    data: { status: 'rejected', reason },
  });
}

export async function findDeposit(prisma: PrismaClient, ref: DepositRef): Promise<Deposit | null> {
  return prisma.deposit.findUnique({ where: { chain_txHash: { chain: ref.chain, txHash: ref.txHash } } });
}
