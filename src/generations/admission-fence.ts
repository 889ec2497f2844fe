// A workflow run decides its task's admission once: a task row (its cost reserved), or a tombstone. Admitting and
// giving up take the same lock, so an admission attempt still under way when its run gave up (a slow database, a
// cancel) finds the tombstone and commits nothing: no reservation outlives the run that answered "nothing charged".
import type { PrismaClient } from '../db/prisma.ts';
import type { Prisma } from '../generated/prisma/client.ts';

/** A task row with its x402 payment (tasks.ts's TaskRow, named here so the two modules need not import each other). */
type TaskRow = Prisma.TaskGetPayload<{ include: { payment: true } }>;

export class AdmissionAbandonedError extends Error {
  override name = 'AdmissionAbandonedError';
  constructor(readonly taskId: string) {
    super(`the admission of task ${taskId} was given up by its workflow run; nothing was reserved`);
  }
}

/** Serialises admitting and failing one task until the end of the transaction. */
export async function lockAdmission(tx: Prisma.TransactionClient, taskId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`admission:${taskId}`}, 0))`;
}

/** Records that `runId` gave up on the task's admission; call under lockAdmission. */
export async function abandonAdmission(
  tx: Prisma.TransactionClient,
  admission: { taskId: string; runId: string },
): Promise<void> {
  await tx.abandonedAdmission.createMany({ data: [admission], skipDuplicates: true });
}

export interface AdmissionAttempt {
  taskId: string;
  /** The workflow run admitting; without one (a direct call), no tombstone is read or written. */
  runId?: string;
  /** Errors that refuse the admission (insufficient funds, …): the run's decision, so it leaves a tombstone too. */
  refusals: (abstract new (...args: never[]) => Error)[];
}

/**
 * Runs `admit` (which reserves and writes the row) under the task's admission lock: a row written earlier answers, a
 * tombstone of this run refuses. A refusal rolls back whatever the attempt wrote; it is then recorded as this run's
 * decision, in a transaction of its own that adopts the row another attempt of the run committed meanwhile, if any.
 */
export async function decideAdmission(
  prisma: PrismaClient,
  attempt: AdmissionAttempt,
  admit: (tx: Prisma.TransactionClient) => Promise<TaskRow>,
): Promise<TaskRow> {
  const { taskId, runId } = attempt;
  try {
    return await prisma.$transaction(async (tx) => {
      await lockAdmission(tx, taskId);
      // One look for both, after the lock (a statement of its own: its snapshot must postdate the lock).
      const [found] = await tx.$queryRaw<{ existing: boolean; abandoned: boolean }[]>`
        SELECT EXISTS (SELECT FROM tasks WHERE id = ${taskId}) AS existing,
               EXISTS (SELECT FROM abandoned_admissions WHERE task_id = ${taskId} AND run_id = ${runId ?? null}::text)
                 AS abandoned`;
      if (found!.existing) return tx.task.findUniqueOrThrow({ where: { id: taskId }, include: { payment: true } });
      if (found!.abandoned) throw new AdmissionAbandonedError(taskId);
      return admit(tx);
    });
  } catch (error) {
    if (!runId || !attempt.refusals.some((refusal) => error instanceof refusal)) throw error;
    const adopted = await adoptOrAbandonAdmission(prisma, { taskId, runId });
    if (adopted) return adopted;
    throw error;
  }
}

/**
 * After a run's admission attempts ran out (the database away longer than they last): the row one of them committed,
 * if any, which the run then adopts, else a tombstone, so that no attempt still under way commits one later.
 */
export async function adoptOrAbandonAdmission(
  prisma: PrismaClient,
  admission: { taskId: string; runId: string },
): Promise<TaskRow | null> {
  return prisma.$transaction(async (tx) => {
    // After the lock: an attempt under way either committed before it (its row is found) or finds the tombstone.
    await lockAdmission(tx, admission.taskId);
    const task = await tx.task.findUnique({ where: { id: admission.taskId }, include: { payment: true } });
    if (!task) await abandonAdmission(tx, admission);
    return task;
  });
}

/** Tombstones older than any admission attempt can live: what the task reconciler prunes. */
export async function pruneAbandonedAdmissions(prisma: PrismaClient, createdBefore: Date): Promise<number> {
  const { count } = await prisma.abandonedAdmission.deleteMany({ where: { createdAt: { lt: createdBefore } } });
  return count;
}
