// How long a task's stored outputs are kept: OUTPUT_RETENTION_DAYS after the task ended. One rule, computed from the
// row and the setting, that the task body (`outputs_expire_at`), /files/ and the sweep all read, so they agree; a
// changed setting applies to every task at once (0 stops all deletion).
import type { OutputsConfig } from '../config/config.ts';
import type { Task } from '../generated/prisma/client.ts';
import { OutputsExpiredError } from '../domain/errors.ts';
import type { PrismaClient } from '../db/prisma.ts';
import { taskIdPattern } from '../domain/values.ts';

export type OutputRetention = Pick<OutputsConfig, 'retentionDays'>;

const dayMs = 86_400_000;

/** Tasks that ended at or before this have outputs past their retention; null: outputs are kept forever. */
export function retainedSince(retention: OutputRetention, now = new Date()): Date | null {
  return retention.retentionDays > 0 ? new Date(now.getTime() - retention.retentionDays * dayMs) : null;
}

/**
 * When a completed task's outputs stop being served and are deleted; null while it runs, without outputs, or when
 * they are kept forever. Once deleted, never later than that (the setting may have grown since).
 */
export function outputsExpireAt(
  task: Pick<Task, 'status' | 'outputs' | 'completedAt' | 'outputsDeletedAt'>,
  retention: OutputRetention,
): Date | null {
  if (task.status !== 'completed' || task.outputs.length === 0 || !task.completedAt) return null;
  const due =
    retention.retentionDays > 0 ? new Date(task.completedAt.getTime() + retention.retentionDays * dayMs) : null;
  const deleted = task.outputsDeletedAt;
  if (!deleted) return due;
  return due && due < deleted ? due : deleted;
}

/**
 * Whether a task's outputs may be served: it has completed (an x402 task's payment has settled). Past their
 * retention, an OutputsExpiredError (410) says when they went.
 */
export async function isDelivered(
  prisma: PrismaClient,
  taskId: string,
  retention: OutputRetention,
  now = new Date(),
): Promise<boolean> {
  if (!taskIdPattern.test(taskId)) return false;
  const task = await prisma.task.findUnique({
    where: { id: taskId },
    select: { status: true, outputs: true, completedAt: true, outputsDeletedAt: true },
  });
  if (task?.status !== 'completed') return false;
  const expiredAt = outputsExpireAt(task, retention);
  if (expiredAt && expiredAt <= now) throw new OutputsExpiredError(expiredAt, retention.retentionDays);
  return true;
}
