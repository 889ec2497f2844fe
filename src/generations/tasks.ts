// Generation tasks: the row and the money move together, in one transaction per step, each step idempotent
// (ledger keys derive from the task id; row updates are guarded by the status they leave).
import type { CatalogModel } from '../catalog/catalog.ts';
import { priceRequest, type PricingInput, type Usage } from '../catalog/pricing.ts';
import { pricingUnits, type PricingUnits } from '../catalog/pricing-units.ts';
import type { PrismaClient } from '../db/prisma.ts';
import { Prisma, type Task, type X402Payment } from '../generated/prisma/client.ts';
import type { GenerationRequest } from '../domain/generation-request.ts';
import { hasEnded } from '../domain/values.ts';
import { abandonAdmission, decideAdmission, lockAdmission } from './admission-fence.ts';
import { recordTaskEnded } from '../metrics/task-metrics.ts';
import { charge, InsufficientFundsError, release, reserve } from '../ledger/ledger.ts';
import { KeyPolicyError } from '../accounts/key-policy.ts';
import { reserveKeySpend, settleKeySpend } from '../accounts/key-spend.ts';
import { recordBudgetAlerts } from '../accounts/key-budget-alerts.ts';
import { cancelledError } from '../../workflows/contracts/generation.types.ts';
import { recordTaskUsage, type TaskOutcome } from './usage-aggregates.ts';

/** The row of a payment held beside its task (see HeldPaymentRules). */
export type HeldPayment = X402Payment;
/** A task row with its held payment, when it was paid that way. */
export type TaskRow = Task & { payment: HeldPayment | null };
/** A task as its admission left it: with the budget alerts it recorded, when it is the admission that committed. */
export type AdmittedTask = TaskRow & { budgetAlerts?: number };
const withPayment = { include: { payment: true } } as const;

export interface AdmitTaskInput {
  taskId: string;
  accountId: string;
  request: GenerationRequest;
  costMicros: bigint;
  idempotencyKey: string | null;
  /** The workflow run admitting it: once that run has given up, no attempt of it commits (admission-fence.ts). */
  runId?: string;
  /** Seconds of the media inputs its price depends on, as measured at admission. */
  inputSeconds?: number;
  /** The failed task this one replays (genctl tasks replay). */
  replayOf?: string;
  /** The key that asked for it: its policy and budget (and its makers') are checked, its spend recorded. */
  apiKeyId?: string;
}

/**
 * Locks the task row for the rest of the transaction: settling and failing a task exclude each other, so a
 * cancellation racing a settlement can never both charge and mark the task failed.
 */
async function lockTask(tx: Prisma.TransactionClient, taskId: string): Promise<TaskRow | null> {
  await tx.$queryRaw`SELECT id FROM tasks WHERE id = ${taskId} FOR UPDATE`;
  return tx.task.findUnique({ where: { id: taskId }, ...withPayment });
}

/** The task row of a request admitted now: `queued`, its quoted cost recorded. */
function newTaskRow(input: {
  taskId: string;
  accountId: string;
  request: GenerationRequest;
  costMicros: bigint;
  idempotencyKey: string | null;
  inputSeconds?: number;
  replayOf?: string;
  apiKeyId?: string;
}) {
  const { request } = input;
  return {
    id: input.taskId,
    accountId: input.accountId,
    type: request.type,
    model: request.model,
    status: 'queued' as const,
    request: request as object,
    prompt: request.prompt,
    aspectRatio: request.aspect_ratio,
    duration: request.duration,
    resolution: request.resolution,
    numOutputs: request.num_outputs,
    inputSeconds: input.inputSeconds,
    costReserved: input.costMicros,
    webhookUrl: request.webhook_url,
    idempotencyKey: input.idempotencyKey,
    replayOf: input.replayOf,
    apiKeyId: input.apiKeyId,
  };
}

/** Reserves the quoted cost and writes the task row `queued`; a repeat finds both and changes nothing. */
export async function admitTask(prisma: PrismaClient, input: AdmitTaskInput): Promise<AdmittedTask> {
  const attempt = { taskId: input.taskId, runId: input.runId, refusals: [InsufficientFundsError, KeyPolicyError] };
  return decideAdmission(prisma, attempt, async (tx) => {
    const task = admittedRow(input, new Date());
    await reserve(
      { tx },
      {
        accountId: input.accountId,
        amount: input.costMicros,
        taskId: input.taskId,
        idempotencyKey: `${input.taskId}:reserve`,
      },
    );
    // After the account's reservation, whose lock orders it after every earlier admission, a key's check and
    // reservation go in the task's own insert: no round trip of their own. A refusal rolls back.
    const insert = insertTaskSql(task);
    const budgets = input.apiKeyId
      ? await reserveKeySpend(tx, { ...task, apiKeyId: input.apiKeyId, costMicros: input.costMicros }, insert)
      : await tx.$executeRaw`${insert}`.then(() => []);
    const budgetAlerts = await recordBudgetAlerts(tx, task, budgets);
    // A new row has no payment yet (a paid task's is written with it, in admitPaidTask): none to read back.
    return { ...task, payment: null, budgetAlerts };
  });
}

/** Writes a new task's row `queued` (no key check: a paid task has no key) and answers it as the database holds it. */
export async function insertTask(tx: Prisma.TransactionClient, input: AdmitTaskInput): Promise<Task> {
  const task = admittedRow(input, new Date());
  await tx.$executeRaw`${insertTaskSql(task)}`;
  return task;
}

/** A new task's row as the database holds it once inserted: every column the insert leaves to its default too. */
function admittedRow(input: AdmitTaskInput, createdAt: Date): Task {
  const row = newTaskRow(input);
  return {
    ...row,
    prompt: row.prompt ?? null,
    output: null,
    outputs: [],
    error: null,
    aspectRatio: row.aspectRatio ?? null,
    duration: row.duration ?? null,
    resolution: row.resolution ?? null,
    numOutputs: row.numOutputs ?? null,
    inputSeconds: row.inputSeconds ?? null,
    costCharged: null,
    webhookUrl: row.webhookUrl ?? null,
    createdAt,
    updatedAt: createdAt,
    completedAt: null,
    startedAt: null,
    progress: null,
    replayOf: row.replayOf ?? null,
    servedBy: null,
    outputsDeletedAt: null,
    usage: null,
    apiKeyId: row.apiKeyId ?? null,
  };
}

/** The insert of a new task's row (`admittedRow`'s columns: the rest keep their defaults). */
const insertTaskSql = (task: Task) => Prisma.sql`
  INSERT INTO tasks (id, account_id, type, model, status, request, prompt, aspect_ratio, duration, resolution,
    num_outputs, input_seconds, cost_reserved, webhook_url, idempotency_key, created_at, updated_at, replay_of,
    api_key_id)
  VALUES (${task.id}, ${task.accountId}, ${task.type}, ${task.model}, 'queued', ${JSON.stringify(task.request)}::jsonb,
    ${task.prompt}, ${task.aspectRatio}, ${task.duration}::int, ${task.resolution}, ${task.numOutputs}::int,
    ${task.inputSeconds}::int, ${task.costReserved}, ${task.webhookUrl}, ${task.idempotencyKey}, ${task.createdAt},
    ${task.updatedAt}, ${task.replayOf}, ${task.apiKeyId})`;

/**
 * Marks a queued task processing; any other finds it as it is. Given the row as its caller has it (not just its id),
 * its payment need not be read back: one statement instead of three on the hot path.
 */
export async function markProcessing(prisma: PrismaClient, task: string | TaskRow): Promise<TaskRow> {
  const [taskId, known] = typeof task === 'string' ? [task, undefined] : [task.id, task];
  // The service's clock, as for every other timestamp of the row (Prisma sets them), not the database's.
  const now = new Date();
  const [started] = await prisma.$queryRaw<{ started_at: Date; updated_at: Date }[]>`
    UPDATE tasks SET status = 'processing', started_at = ${now}, updated_at = ${now}
    WHERE id = ${taskId} AND status = 'queued'
    RETURNING started_at, updated_at`;
  // The update changed only these: the caller's row, with them, is the row as it now stands.
  if (started && known)
    return { ...known, status: 'processing', startedAt: started.started_at, updatedAt: started.updated_at };
  return prisma.task.findUniqueOrThrow({ where: { id: taskId }, ...withPayment });
}

export interface Delivered {
  outputs: string[];
  usage?: Usage;
  /** The provider whose route ran the task (a fallback's, when one took over). */
  servedBy?: string;
}

/** What a task is charged from its balance, and what that counted in the model's pricing units (the usage report's). */
export interface UsedPrice {
  micros: bigint;
  units: PricingUnits;
}

/**
 * What a task used, at most its quote: the quote was the most it could cost; what was used (tokens, seconds) and
 * delivered (fewer outputs than asked for) is what is charged, never less than its measured inputs cost.
 */
export function usedPrice(
  model: CatalogModel,
  task: Pick<Task, 'request' | 'costReserved' | 'inputSeconds'>,
  delivered: Delivered,
): UsedPrice {
  const request = storedRequest(task);
  const fewerOutputs = request.num_outputs !== undefined && delivered.outputs.length < request.num_outputs;
  const measured = task.inputSeconds !== null ? { input_seconds: task.inputSeconds } : {};
  if (!delivered.usage && !fewerOutputs) {
    // The quote is charged as it stands; pricing it again only says what it counted (a catalog changed since may not
    // price it any more: then no units, never a failed settlement).
    const quoted = priceOrNull(model, { ...request, ...measured });
    return { micros: task.costReserved, units: quoted ? pricingUnits(model, quoted.breakdown) : {} };
  }
  const used = priceRequest(model, {
    ...request,
    ...measured,
    ...(fewerOutputs ? { num_outputs: delivered.outputs.length } : {}),
    ...(delivered.usage ? { usage: delivered.usage } : {}),
  });
  return {
    micros: used.micros < task.costReserved ? used.micros : task.costReserved,
    units: pricingUnits(model, used.breakdown),
  };
}

function priceOrNull(model: CatalogModel, input: PricingInput) {
  try {
    return priceRequest(model, input);
  } catch {
    return null;
  }
}

export const usedCost = (...args: Parameters<typeof usedPrice>): bigint => usedPrice(...args).micros;

/**
 * A payment held beside a task instead of a reservation from its balance (x402's: authorized at admission, moved on
 * chain after delivery). Its method gives the rules (registered.ts's heldPaymentRules), within the task's transaction.
 */
export interface HeldPaymentRules {
  /** Completion: what the task is charged, credited and reserved for it. */
  charged(tx: Prisma.TransactionClient, task: TaskRow, payment: HeldPayment): Promise<bigint>;
  /** Failure: the payment given up, or what already moved owed back. */
  abandoned(tx: Prisma.TransactionClient, task: TaskRow, payment: HeldPayment): Promise<void>;
}

/** Charges what the task actually cost (never more than reserved), releases the rest, marks it completed. */
export async function completeTask(
  prisma: PrismaClient,
  model: CatalogModel,
  input: { taskId: string } & Delivered,
  held: HeldPaymentRules,
): Promise<TaskRow> {
  let released: bigint | undefined;
  const completed = await prisma.$transaction(async (tx) => {
    const task = await lockTask(tx, input.taskId);
    if (!task) throw new Error(`task ${input.taskId} does not exist`);
    if (hasEnded(task.status)) return task;
    // A balance pays what it used (never more than reserved); a held payment what its method says it moved.
    const used = usedPrice(model, task, input);
    const charged = task.payment ? await held.charged(tx, task, task.payment) : used.micros;
    const entry = await charge(
      { tx },
      { accountId: task.accountId, amount: charged, taskId: task.id, idempotencyKey: `${task.id}:charge` },
    );
    // The charge's entry releases all the task held; what it did not charge went back to the balance.
    released = -entry.reservedDelta - charged;
    await settleKeySpend(tx, task, charged);
    await recordTaskUsage(tx, {
      ...usageOf(task, 'completed'),
      costMicros: charged,
      refundedMicros: released,
      units: used.units,
    });
    const completion = {
      status: 'completed' as const,
      output: input.outputs[0] ?? null,
      outputs: input.outputs,
      costCharged: charged,
      completedAt: new Date(),
      servedBy: input.servedBy ?? null,
      usage: used.units,
    };
    await tx.$executeRaw`
      UPDATE tasks SET status = 'completed', output = ${completion.output}, outputs = ${completion.outputs}::text[],
        cost_charged = ${charged}, completed_at = ${completion.completedAt}, served_by = ${completion.servedBy},
        usage = ${JSON.stringify(used.units)}::jsonb, updated_at = ${completion.completedAt}
      WHERE id = ${task.id}`;
    // The row as read under the lock, with what this update changed (its payment included: completing credits and
    // charges, but never changes the payment's row).
    return { ...task, ...completion, updatedAt: completion.completedAt };
  });
  // Counted after the commit, and only by the call that ended the task (a retry finds it ended: released unset).
  if (released !== undefined)
    recordTaskEnded({ ...taskEnd(completed), chargedMicros: completed.costCharged ?? 0n, releasedMicros: released });
  return completed;
}

const usageOf = (task: TaskRow, outcome: TaskOutcome) => ({
  accountId: task.accountId,
  apiKeyId: task.apiKeyId,
  model: task.model,
  type: task.type,
  outcome,
});

const taskEnd = (task: TaskRow) => ({
  model: task.model,
  status: task.status as 'completed' | 'failed',
  createdAt: task.createdAt,
  completedAt: task.completedAt,
});

/**
 * Releases the whole reservation (a held payment is abandoned instead: it is never settled) and marks the task
 * failed with a caller-safe error. Without a row (admission never committed) there is nothing to release: null, and
 * the admission of `runId` is given up for good, so an attempt of it still under way cannot commit later.
 * `onlyIf`: the status it was found in; a task that has moved on meanwhile is left to its workflow.
 */
export async function failTask(
  prisma: PrismaClient,
  input: { taskId: string; error: string; runId?: string; onlyIf?: 'queued' | 'processing' },
  held: HeldPaymentRules,
): Promise<TaskRow | null> {
  let released: bigint | undefined;
  const failed = await prisma.$transaction(async (tx) => {
    // Waits for an admission under way: it either commits first (and is released here) or finds the tombstone.
    await lockAdmission(tx, input.taskId);
    const task = await lockTask(tx, input.taskId);
    if (!task) {
      if (input.runId) await abandonAdmission(tx, { taskId: input.taskId, runId: input.runId });
      return null;
    }
    if (hasEnded(task.status)) return task;
    if (input.onlyIf && task.status !== input.onlyIf) return task;
    released = 0n;
    if (!task.payment) {
      const entry = await release(
        { tx },
        { accountId: task.accountId, taskId: task.id, idempotencyKey: `${task.id}:release` },
      );
      released = -entry.reservedDelta;
      await settleKeySpend(tx, task, 0n);
    } else await held.abandoned(tx, task, task.payment);
    const outcome = input.error === cancelledError ? 'cancelled' : 'failed';
    await recordTaskUsage(tx, { ...usageOf(task, outcome), costMicros: 0n, refundedMicros: released, units: {} });
    return tx.task.update({
      where: { id: task.id },
      data: { status: 'failed', error: input.error, completedAt: new Date() },
      ...withPayment,
    });
  });
  if (failed && released !== undefined)
    recordTaskEnded({ ...taskEnd(failed), chargedMicros: 0n, releasedMicros: released });
  return failed;
}

/** The request a task was admitted with (a JSON column, written from a GenerationRequest). */
export const storedRequest = (task: Pick<Task, 'request'>) => task.request as unknown as GenerationRequest;

export async function findAdmittedTask(prisma: PrismaClient, taskId: string): Promise<TaskRow | null> {
  return prisma.task.findFirst({ where: { id: taskId, status: { in: ['queued', 'processing'] } }, ...withPayment });
}

/** Tasks still `queued` since before `createdBefore`, oldest first: admissions that may never have reached a workflow. */
export async function findLongQueuedTasks(
  prisma: PrismaClient,
  input: { createdBefore: Date; limit: number },
): Promise<TaskRow[]> {
  return prisma.task.findMany({
    where: { status: 'queued', createdAt: { lt: input.createdBefore } },
    orderBy: { createdAt: 'asc' },
    take: input.limit,
    ...withPayment,
  });
}

export async function findTaskForAccount(
  prisma: PrismaClient,
  taskId: string,
  accountId: string,
  includePayment = true,
): Promise<(Task & { payment?: HeldPayment | null }) | null> {
  const task = await prisma.task.findUnique({ where: { id: taskId }, include: { payment: includePayment } });
  // Someone else's task is answered exactly like a task that does not exist.
  return task && task.accountId === accountId ? task : null;
}

export async function findTaskByIdempotencyKey(
  prisma: PrismaClient,
  accountId: string,
  idempotencyKey: string,
): Promise<Task | null> {
  return prisma.task.findUnique({ where: { accountId_idempotencyKey: { accountId, idempotencyKey } } });
}
