// An account's balance row, checked against the sums of its ledger entries on every read: the invariant the money
// tests assert after each step.
import { expect } from 'vitest';
import type { PrismaClient } from '../../src/db/prisma.ts';
import { ledgerTotals } from '../../src/payments/ledger.ts';

export async function checkedBalance(prisma: PrismaClient, accountId: string) {
  const row = await prisma.balance.findUniqueOrThrow({ where: { accountId } });
  const totals = await ledgerTotals(prisma, accountId);
  expect({ balance: totals.balance, reserved: totals.reserved }).toEqual({
    balance: row.balance,
    reserved: row.reserved,
  });
  return { balance: row.balance, reserved: row.reserved };
}
