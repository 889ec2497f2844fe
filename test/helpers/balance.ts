// An account's balance row, checked against the sums of its ledger entries on every read: the invariant the money
// tests assert after each step. Both are read in one snapshot, so a task settling meanwhile cannot split them.
import { expect } from 'vitest';
import type { PrismaClient } from '../../src/db/prisma.ts';
import { ledgerTotals } from '../../src/ledger/ledger.ts';

export async function checkedBalance(prisma: PrismaClient, accountId: string) {
  const [row, totals] = await prisma.$transaction(
    async (tx) =>
      [await tx.balance.findUniqueOrThrow({ where: { accountId } }), await ledgerTotals(tx, accountId)] as const,
    { isolationLevel: 'RepeatableRead' },
  );
  expect({ balance: totals.balance, reserved: totals.reserved }).toEqual({
    balance: row.balance,
    reserved: row.reserved,
  });
  return { balance: row.balance, reserved: row.reserved };
}
