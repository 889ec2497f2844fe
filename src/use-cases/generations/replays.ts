// Batch replay of failed tasks (`genctl tasks replay`): the replay of one as a new task through the same admission
// as POST /generations (validated, quoted at today's price, reserved from the same account), and a dry run's plan.
// Which tasks a batch selects is src/generations/replay-selection.ts.
import { ModelRequestError } from '../../catalog/resolve.ts';
import { FieldError, IdempotencyKeyReusedError } from '../../domain/errors.ts';
import { formatUsd } from '../../domain/money.ts';
import { skipReasons } from '../../domain/replay-reasons.ts';
import type { ReplayCandidate, ReplayOutcome } from '../../../workflows/contracts/replay-batch.types.ts';
import { admissibleRequest } from './admissible.ts';
import { admitGeneration, type AdmissionDeps } from './admit.ts';
import { InsufficientFundsError } from '../../ledger/ledger.ts';
import { replayIdempotencyKey } from '../../generations/replay-selection.ts';
import { storedRequest } from '../../generations/tasks.ts';

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
