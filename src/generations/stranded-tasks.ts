// The task reconciler's lookups: tasks nobody may finish any more, and what they hold.
import type { PrismaClient } from '../db/prisma.ts';
import type { Task } from '../generated/prisma/client.ts';
import type { TaskRow } from './tasks.ts';

/**
 * Tasks `processing` and untouched since before `updatedBefore`, in (updatedAt, id) order after `after`: the ones whose
 * workflow may have closed without settling them. Paged, so running tasks never hide the ones behind them.
 */
export async function findLongProcessingTasks(
  prisma: PrismaClient,
  input: { updatedBefore: Date; limit: number; after?: Pick<Task, 'updatedAt' | 'id'> },
): Promise<TaskRow[]> {
  const { after } = input;
  return prisma.task.findMany({
    where: {
      status: 'processing',
      updatedAt: { lt: input.updatedBefore },
      ...(after
        ? { OR: [{ updatedAt: { gt: after.updatedAt } }, { updatedAt: after.updatedAt, id: { gt: after.id } }] }
        : {}),
    },
    orderBy: [{ updatedAt: 'asc' }, { id: 'asc' }],
    take: input.limit,
    include: { payment: true },
  });
}

/** What the release of a failed task gave back (zero for an x402 task, which reserves nothing before it settles). */
export async function releasedBy(prisma: PrismaClient, taskId: string): Promise<bigint> {
  const entry = await prisma.ledgerEntry.findUnique({ where: { idempotencyKey: `${taskId}:release` } });
  return entry ? -entry.reservedDelta : 0n;
}
