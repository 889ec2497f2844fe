// Tasks as operators see them (genctl tasks list|show): any account's, with what callers are not shown — the
// account, the money moved for the task in the ledger, the x402 payment's state, the replay links.
import type { PrismaClient } from '../db/prisma.ts';
import type { AccountKind, LedgerEntry, Task, X402Payment } from '../generated/prisma/client.ts';
import type { TaskStatus } from '../domain/values.ts';

export interface TaskFilter {
  accountId?: string;
  status?: TaskStatus;
  model?: string;
  limit: number;
}

/** Tasks of every account, newest first; each filter given narrows the list. */
export function listTasks(prisma: PrismaClient, filter: TaskFilter): Promise<Task[]> {
  return prisma.task.findMany({
    where: { accountId: filter.accountId, status: filter.status, model: filter.model },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: filter.limit,
  });
}

export interface OperatorTask {
  task: Task & { payment: X402Payment | null; account: { kind: AccountKind }; replay: { id: string } | null };
  /** Every ledger entry of the task, of whichever account (an x402 payment's is the payer wallet's), oldest first. */
  ledger: LedgerEntry[];
}

/** One task of any account with its ledger entries; null when there is no such task. */
export async function taskForOperator(prisma: PrismaClient, taskId: string): Promise<OperatorTask | null> {
  const [task, ledger] = await Promise.all([
    prisma.task.findUnique({
      where: { id: taskId },
      include: { payment: true, account: { select: { kind: true } }, replay: { select: { id: true } } },
    }),
    prisma.ledgerEntry.findMany({ where: { taskId }, orderBy: { id: 'asc' } }),
  ]);
  return task && { task, ledger };
}
