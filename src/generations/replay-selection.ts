// Which failed tasks a batch replay (`genctl tasks replay`) selects and what became of its replays: database reads
// only. A batch is named by its selection, and a replay's Idempotency-Key by (batch, task), so no batch ever replays
// a task twice.
import { createHash } from 'node:crypto';
import { filterModels, type Catalog } from '../catalog/catalog.ts';
import type { PrismaClient } from '../db/prisma.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { toBase62 } from '../domain/ids.ts';
import { skipReasons } from '../domain/replay-reasons.ts';
import type { ReplayCandidate, ReplaySelection } from '../../workflows/contracts/replay-batch.types.ts';
import { cancelledError } from '../../workflows/contracts/generation.types.ts';

/**
 * A selection with relative bounds (`--since 1h`, `--until` left to now) is named by the bounds as written and the
 * window of time the command ran in, not by the times they resolved to (which move with every run).
 */
export interface RelativeBounds {
  since?: string;
  until: string;
  /** The start of the window (ISO): runs within the same window name the same batch. */
  window: string;
}

/**
 * The same selection always names the same batch (its workflow id), so running it again finds its replays; with
 * relative bounds, the same bounds as written within the same window do.
 */
export function replayBatchId(selection: ReplaySelection, relative?: RelativeBounds): string {
  const { status, model, provider, accountId, error, limit, includeCancelled } = selection;
  const canonical = JSON.stringify([
    status,
    relative ? `${relative.since ?? ''}@${relative.window}` : selection.since,
    relative ? `${relative.until}@${relative.window}` : selection.until,
    model,
    provider,
    accountId,
    error,
    limit,
    ...(includeCancelled ? ['include-cancelled'] : []),
  ]);
  return `replay-${toBase62(createHash('sha256').update(canonical).digest().subarray(0, 12))}`;
}

/** The replay's Idempotency-Key on the original's account: its task id derives from it, as a retried POST's does. */
export const replayIdempotencyKey = (batchId: string, taskId: string) => `replay:${batchId}:${taskId}`;

/** On the (status, created_at) index; model, provider, account and error narrow what it finds. */
function selectionWhere(catalog: Catalog, selection: ReplaySelection): Prisma.TaskWhereInput {
  const conditions: Prisma.TaskWhereInput[] = [
    { status: selection.status },
    { createdAt: { ...(selection.since ? { gte: new Date(selection.since) } : {}), lt: new Date(selection.until) } },
  ];
  if (selection.model) conditions.push({ model: selection.model });
  if (selection.provider)
    conditions.push({
      model: { in: filterModels(catalog, { provider: selection.provider }).map((model) => model.id) },
    });
  if (selection.accountId) conditions.push({ accountId: selection.accountId });
  if (selection.error) conditions.push({ error: { contains: selection.error, mode: 'insensitive' } });
  return { AND: conditions };
}

/** A task its caller cancelled was stopped on purpose: a batch re-runs (and charges) it only when asked to. */
const cancelledByCaller = (task: { error: string | null }, selection: ReplaySelection) =>
  task.error === cancelledError && !selection.includeCancelled;

/**
 * The failed tasks a selection finds, oldest first, each with what rules out its replay already (x402, replayed,
 * cancelled by its caller).
 */
export async function selectReplayCandidates(
  prisma: PrismaClient,
  catalog: Catalog,
  selection: ReplaySelection,
): Promise<ReplayCandidate[]> {
  const tasks = await prisma.task.findMany({
    where: selectionWhere(catalog, selection),
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take: selection.limit,
    select: {
      id: true,
      accountId: true,
      model: true,
      error: true,
      account: { select: { kind: true } },
      payment: { select: { taskId: true } },
      replay: { select: { id: true } },
    },
  });
  return tasks.map((task) => ({
    taskId: task.id,
    accountId: task.accountId,
    model: task.model,
    skip:
      task.payment || task.account.kind === 'wallet'
        ? { reason: skipReasons.x402 }
        : task.replay
          ? { reason: skipReasons.alreadyReplayed, replayId: task.replay.id }
          : cancelledByCaller(task, selection)
            ? { reason: skipReasons.cancelled }
            : null,
  }));
}

/** The status of each replay that has a row: `pending` until it ends. */
export async function replayStatuses(
  prisma: PrismaClient,
  replayIds: string[],
): Promise<Record<string, 'pending' | 'completed' | 'failed'>> {
  const rows = await prisma.task.findMany({ where: { id: { in: replayIds } }, select: { id: true, status: true } });
  return Object.fromEntries(
    rows.map((row) => [row.id, row.status === 'completed' || row.status === 'failed' ? row.status : 'pending']),
  );
}
