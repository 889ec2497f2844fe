// The money rules, read from the database once an account's tasks have all ended: its ledger sums to its balance row
// with nothing left reserved, no task reserved or charged twice, a completed task charged once, a failed one not.
import type { PrismaClient } from '../src/db/prisma.ts';

export interface LedgerCheck {
  /** Every rule that does not hold, in words (empty when all hold). */
  problems: string[];
  /** Tasks with more than one charge or reservation entry. */
  chargedTwice: string[];
}

/** Every rule that does not hold for `accountId`, in words (empty when all hold). */
export const ledgerProblems = async (prisma: PrismaClient, accountId: string): Promise<string[]> =>
  (await checkLedger(prisma, accountId)).problems;

export async function checkLedger(prisma: PrismaClient, accountId: string): Promise<LedgerCheck> {
  const problems: string[] = [];
  const chargedTwice: string[] = [];
  const [sums] = await prisma.$queryRaw<
    { balance: bigint; reserved: bigint; ledger: bigint; ledger_reserved: bigint }[]
  >`
    SELECT b.balance, b.reserved,
           COALESCE(SUM(l.amount), 0)::bigint AS ledger, COALESCE(SUM(l.reserved_delta), 0)::bigint AS ledger_reserved
    FROM balances b LEFT JOIN ledger_entries l ON l.account_id = b.account_id
    WHERE b.account_id = ${accountId} GROUP BY b.balance, b.reserved`;
  if (!sums) return { problems: [`${accountId} has no balance row`], chargedTwice };
  if (sums.ledger !== sums.balance || sums.ledger_reserved !== sums.reserved)
    problems.push(
      `${accountId}: ledger ${sums.ledger}/${sums.ledger_reserved} ≠ balance ${sums.balance}/${sums.reserved}`,
    );
  if (sums.reserved !== 0n) problems.push(`${accountId}: ${sums.reserved} still reserved`);

  const tasks = await prisma.$queryRaw<{ id: string; status: string; charges: number; reserves: number }[]>`
    SELECT t.id, t.status::text AS status,
           (COUNT(l.id) FILTER (WHERE l.kind = 'charge'))::int AS charges,
           (COUNT(l.id) FILTER (WHERE l.kind = 'reserve'))::int AS reserves
    FROM tasks t LEFT JOIN ledger_entries l ON l.task_id = t.id
    WHERE t.account_id = ${accountId} GROUP BY t.id, t.status`;
  for (const task of tasks) {
    if (task.charges > 1 || task.reserves > 1) {
      chargedTwice.push(task.id);
      problems.push(`${task.id}: ${task.charges} charges, ${task.reserves} reservations`);
    }
    if (task.status === 'completed' && task.charges !== 1)
      problems.push(`${task.id} completed, charged ${task.charges}×`);
    if (task.status === 'failed' && task.charges !== 0) problems.push(`${task.id} failed but charged`);
    if (task.status !== 'completed' && task.status !== 'failed') problems.push(`${task.id} still ${task.status}`);
  }
  return { problems, chargedTwice };
}
