// What a balance task moved, as receipts: its charge and what its reservation gave back (a failed or cancelled task:
// all of it), each naming its ledger entry. A task with no such entry is not this method's, or has moved nothing (null).
import type { PrismaClient } from '../../../db/prisma.ts';
import type { ReceiptFacts, ReceiptKind } from '../../receipts/receipts.ts';

/** The ledger is the transaction of a balance's movement: `balance` stands where a chain's id would. */
const balanceNetwork = 'balance';

export async function balanceReceiptFacts(
  prisma: PrismaClient,
  task: { id: string; accountId: string },
  resourceUrl: string,
): Promise<ReceiptFacts[] | null> {
  const entries = await prisma.ledgerEntry.findMany({
    where: { taskId: task.id, accountId: task.accountId, kind: { in: ['charge', 'release'] } },
    orderBy: { id: 'asc' },
  });
  if (entries.length === 0) return null;
  return entries.flatMap((entry) => {
    const amount = entry.kind === 'charge' ? -entry.amount : -entry.reservedDelta;
    if (amount <= 0n) return [];
    const kind: ReceiptKind = entry.kind === 'charge' ? 'charge' : 'refund';
    return [
      {
        kind,
        id: task.id,
        resourceUrl,
        payer: task.accountId,
        network: balanceNetwork,
        transaction: `ledger:${entry.id}`,
        amount,
        issuedAt: entry.createdAt,
      },
    ];
  });
}
