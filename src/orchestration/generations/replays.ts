// Batch replay of failed tasks (`genctl tasks replay`): which tasks a batch selects, and the replay of one as a new
// task through the same admission as POST /generations (validated, quoted at today's price, reserved from the same
// account). A replay's Idempotency-Key derives from (batch, task), so no batch ever replays a task twice.
import { createHash } from 'node:crypto';
import { filterModels, type Catalog } from '../../catalog/catalog.ts';
import { ModelRequestError } from '../../catalog/resolve.ts';
import type { PrismaClient } from '../../db/prisma.ts';
import { FieldError, IdempotencyKeyReusedError } from '../../domain/errors.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import { formatUsd } from '../../domain/money.ts';
import { skipReasons } from '../../domain/replay-reasons.ts';
import type { ReplayCandidate, ReplayOutcome, ReplaySelection } from '../../../workflows/replay-batch.types.ts';
import { cancelledError } from '../../../workflows/generation/generation.types.ts';
import { admissibleRequest } from './admissible.ts';
import { admitGeneration, type AdmissionDeps } from './admit.ts';
import { toBase62 } from '../../domain/ids.ts';
import { InsufficientFundsError } from '../../ledger/ledger.ts';
import { storedRequest } from '../../generations/tasks.ts';

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

/** Why a request cannot be admitted again, when the catalog or the server no longer take it as it was. */
const refusalDetail = (error: unknown) =>
  error instanceof ModelRequestError || error instanceof FieldError || error instanceof IdempotencyKeyReusedError
    ? error.message
    : null;

/**
 * Replays one failed task as a new task linked to it (`replay_of`), admitted like POST /generations with the
 * original request. An x402 task, one replayed by another batch, one its account cannot pay for now, or one no
 * longer admissible is skipped with the reason; nothing is ever run unpaid. A retry finds this batch's replay.
 */
export async function replayTask(
  deps: AdmissionDeps,
  input: { batchId: string; taskId: string },
): Promise<ReplayOutcome> {
  const task = await deps.prisma.task.findUniqueOrThrow({
    where: { id: input.taskId },
    include: { account: { select: { kind: true } }, payment: { select: { taskId: true } }, replay: true },
  });
  if (task.payment || task.account.kind === 'wallet') return { outcome: 'skipped', reason: skipReasons.x402 };
  const idempotencyKey = replayIdempotencyKey(input.batchId, task.id);
  if (task.replay && task.replay.idempotencyKey !== idempotencyKey)
    return { outcome: 'skipped', reason: skipReasons.alreadyReplayed, replayId: task.replay.id };
  try {
    const account = { id: task.accountId, kind: task.account.kind };
    const { queued } = await admitGeneration(
      deps,
      { body: storedRequest(task), replayOf: task.id },
      { kind: 'balance', account, idempotencyKey },
    );
    return { outcome: 'replayed', replayId: queued.id, costMicros: queued.costMicros.toString() };
  } catch (error) {
    if (error instanceof InsufficientFundsError) {
      const detail = `${formatUsd(error.required)} USD needed, ${formatUsd(error.available)} available`;
      return { outcome: 'skipped', reason: skipReasons.insufficientBalance, detail };
    }
    const refused = refusalDetail(error);
    if (refused !== null) return { outcome: 'skipped', reason: skipReasons.notAdmissible, detail: refused };
    // Another batch replayed it meanwhile: its unique replay_of refused this admission.
    const replay = await deps.prisma.task.findUnique({ where: { replayOf: task.id }, select: { id: true } });
    if (replay && replay.id !== task.replay?.id)
      return { outcome: 'skipped', reason: skipReasons.alreadyReplayed, replayId: replay.id };
    throw error;
  }
}

/** What a dry run would do with each candidate: its price today, or why it would be skipped. */
export type ReplayPlan = ReplayCandidate & { costMicros?: bigint; detail?: string };

/**
 * A dry run's guess, nothing started: each candidate priced as it would be now, and skipped when its account's
 * available balance (less the replays before it) does not cover it. Admission decides for real.
 */
export async function planReplay(
  deps: Pick<AdmissionDeps, 'prisma' | 'config' | 'catalog'>,
  candidates: ReplayCandidate[],
): Promise<ReplayPlan[]> {
  const ids = candidates.filter((candidate) => !candidate.skip).map((candidate) => candidate.taskId);
  const tasks = await deps.prisma.task.findMany({ where: { id: { in: ids } }, select: { id: true, request: true } });
  const requests = new Map(tasks.map((task) => [task.id, storedRequest(task)]));
  const accountIds = [...new Set(candidates.map((candidate) => candidate.accountId))];
  const balances = await deps.prisma.balance.findMany({ where: { accountId: { in: accountIds } } });
  const available = new Map(balances.map((row) => [row.accountId, row.balance - row.reserved]));
  return candidates.map((candidate): ReplayPlan => {
    if (candidate.skip) return candidate;
    let costMicros: bigint;
    try {
      costMicros = admissibleRequest(deps, requests.get(candidate.taskId)!).costMicros;
    } catch (error) {
      const detail = refusalDetail(error);
      if (detail === null) throw error;
      return { ...candidate, skip: { reason: skipReasons.notAdmissible }, detail };
    }
    const left = available.get(candidate.accountId) ?? 0n;
    if (left < costMicros) {
      const detail = `${formatUsd(costMicros)} USD needed, ${formatUsd(left)} available`;
      return { ...candidate, skip: { reason: skipReasons.insufficientBalance }, costMicros, detail };
    }
    available.set(candidate.accountId, left - costMicros);
    return { ...candidate, costMicros };
  });
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
