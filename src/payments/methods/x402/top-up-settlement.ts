// Worker side of a top-up: the payment moves on chain once (a retry after a crash finds its transfer), then the
// balance is credited once, in the transaction that records the transfer.
import type { PrismaClient } from '../../../db/prisma.ts';
import type { X402TopUp } from '../../../generated/prisma/client.ts';
import { credit } from '../../../ledger/ledger.ts';
import { PaymentNotSettledError, type SettlementDeps, settleHeld } from './settlement.ts';
import type { FoundSettlement } from './settlement-lookup.ts';

/** The ledger entry of a top-up: one per top-up, whichever attempt records it. */
export const topUpIdempotencyKey = (topUpId: string) => `${topUpId}:x402-topup`;

async function recordTopUp(prisma: PrismaClient, topUp: X402TopUp, settled: FoundSettlement): Promise<X402TopUp> {
  return prisma.$transaction(async (tx) => {
    await credit(
      { tx },
      {
        accountId: topUp.accountId,
        amount: settled.amount,
        kind: 'x402_topup',
        idempotencyKey: topUpIdempotencyKey(topUp.id),
        memo: `x402 top-up ${topUp.id}: ${settled.transaction} on ${topUp.network}`,
      },
    );
    return tx.x402TopUp.update({
      where: { id: topUp.id },
      data: { status: 'settled', transaction: settled.transaction, settledAt: new Date(), error: null },
    });
  });
}

/** Settles the top-up and credits it; throws PaymentNotSettledError when it never will move, anything else to retry. */
export async function settleTopUp(deps: SettlementDeps, topUpId: string): Promise<X402TopUp> {
  const topUp = await deps.prisma.x402TopUp.findUniqueOrThrow({ where: { id: topUpId } });
  if (topUp.status === 'settled') return topUp;
  if (topUp.status === 'failed') throw new PaymentNotSettledError(topUp.error ?? 'failed');
  await deps.prisma.x402TopUp.updateMany({
    where: { id: topUpId, status: 'authorized' },
    data: { status: 'settling' },
  });
  try {
    return await settleHeld(deps, topUp, topUp.amount, (settled) => recordTopUp(deps.prisma, topUp, settled));
  } catch (error) {
    if (!(error instanceof PaymentNotSettledError)) throw error;
    await deps.prisma.x402TopUp.updateMany({
      where: { id: topUpId, status: { in: ['authorized', 'settling'] } },
      data: { status: 'failed', error: error.reason },
    });
    throw error;
  }
}

/** Top-ups kept before `createdBefore` and still neither settled nor failed, oldest first: what the reconciler resumes. */
export function findUnsettledTopUps(prisma: PrismaClient, input: { createdBefore: Date; limit: number }) {
  return prisma.x402TopUp.findMany({
    where: { status: { in: ['authorized', 'settling'] }, createdAt: { lt: input.createdBefore } },
    orderBy: { createdAt: 'asc' },
    take: input.limit,
  });
}
