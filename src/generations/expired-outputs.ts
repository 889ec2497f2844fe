// The output retention sweep's one page: ended tasks past OUTPUT_RETENTION_DAYS lose their stored files and are
// marked. By the task's folder (`<task id>/`), not its recorded links: a task that failed after its outputs were
// stored (an x402 payment that never settled, a cancel) left files its row never named, and they go too.
import type { PrismaClient } from '../db/prisma.ts';
import type { Storage } from '../storage/storage.ts';
import { type OutputRetention, retainedSince } from './output-retention.ts';

export interface ExpiredOutputsDeps {
  prisma: PrismaClient;
  storage: Storage;
  config: { outputs: OutputRetention };
}

/** Deletes the stored files of up to `limit` ended tasks past their retention, oldest first, and marks them. */
export async function deleteExpiredOutputs(deps: ExpiredOutputsDeps, limit: number): Promise<{ deleted: string[] }> {
  const endedBefore = retainedSince(deps.config.outputs);
  if (!endedBefore) return { deleted: [] };
  const expired = await deps.prisma.task.findMany({
    where: { status: { in: ['completed', 'failed'] }, outputsDeletedAt: null, completedAt: { lte: endedBefore } },
    orderBy: { completedAt: 'asc' },
    take: limit,
    select: { id: true },
  });
  const ids = expired.map((task) => task.id);
  // The files go first: a task marked deleted never names a file that is still there, and a retried page finds the
  // folders empty (no error) and marks the rest.
  await deps.storage.removeFolders(...ids);
  // Raw, so `updated_at` stays as the caller last saw the task: its body does not change (outputs_expire_at stands).
  if (ids.length > 0)
    await deps.prisma.$executeRaw`
      UPDATE tasks SET outputs_deleted_at = now() WHERE id = ANY(${ids}) AND outputs_deleted_at IS NULL`;
  // Their event history goes with them: a stream of such a task sends only its final event, read from the row.
  if (ids.length > 0) await deps.prisma.taskEvent.deleteMany({ where: { taskId: { in: ids } } });
  return { deleted: ids };
}
