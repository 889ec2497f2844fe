// Every balance change is one UPDATE of the balance row plus one append-only ledger entry, written by one statement,
// under a unique idempotency key: a retried call finds its entry and moves nothing.
import type { PrismaClient } from '../db/prisma.ts';
import { DomainError } from '../domain/errors.ts';
import { formatUsd, usdNumber } from '../domain/money.ts';
import { type LedgerEntryKind, Prisma } from '../generated/prisma/client.ts';

/** The client, or a caller's open transaction (`{ tx }`) to move money as part of a larger change. */
export type LedgerDb = PrismaClient | { tx: Prisma.TransactionClient };

export class InsufficientFundsError extends DomainError {
  override name = 'InsufficientFundsError';
  constructor(
    readonly required: bigint,
    readonly available: bigint,
  ) {
    super('insufficient_balance', `insufficient funds: ${required} micro-USD required, ${available} available`, {
      details: { cost: usdNumber(required), balance_available: usdNumber(available) },
    });
  }

  // The log keeps the exact micro-USD; the caller reads dollars.
  override get callerMessage(): string {
    return `This generation costs $${formatUsd(this.required)}; the available balance is $${formatUsd(this.available)}.`;
  }
}

export class LedgerError extends Error {
  override name = 'LedgerError';
}

export interface LedgerResult {
  /** false when the idempotency key had already been used: nothing moved this time. */
  applied: boolean;
  entryId: bigint;
  kind: LedgerEntryKind;
  amount: bigint;
  reservedDelta: bigint;
  balance: bigint;
  reserved: bigint;
}

interface Move {
  accountId: string;
  idempotencyKey: string;
  taskId?: string;
  memo?: string;
}

/** What a repeat must match: the same operation on the same account and task, for the same amount. */
interface Expected {
  kind: LedgerEntryKind;
  /** The entry's amount / reserved change this request would write, when the request fixes it. */
  amount?: bigint;
  reservedDelta?: bigint;
}

interface EntryRow {
  id: bigint;
  account_id: string;
  kind: LedgerEntryKind;
  amount: bigint;
  reserved_delta: bigint;
  balance_after: bigint;
  reserved_after: bigint;
  task_id: string | null;
}

const asResult = (entry: EntryRow, applied: boolean): LedgerResult => ({
  applied,
  entryId: entry.id,
  kind: entry.kind,
  amount: entry.amount,
  reservedDelta: entry.reserved_delta,
  balance: entry.balance_after,
  reserved: entry.reserved_after,
});

async function priorEntry(tx: Prisma.TransactionClient, move: Move, expected: Expected): Promise<LedgerResult | null> {
  const [entry] = await tx.$queryRaw<EntryRow[]>`
    SELECT id, account_id, kind, amount, reserved_delta, balance_after, reserved_after, task_id
    FROM ledger_entries WHERE idempotency_key = ${move.idempotencyKey}`;
  if (!entry) return null;
  const same =
    entry.account_id === move.accountId &&
    entry.kind === expected.kind &&
    entry.task_id === (move.taskId ?? null) &&
    (expected.amount === undefined || entry.amount === expected.amount) &&
    (expected.reservedDelta === undefined || entry.reserved_delta === expected.reservedDelta);
  if (!same) {
    throw new LedgerError(
      `idempotency key ${move.idempotencyKey} was already used for a different operation (${entry.kind} of ${entry.amount}/${entry.reserved_delta} on ${entry.account_id}, task ${entry.task_id ?? 'none'})`,
    );
  }
  return asResult(entry, false);
}

/** A move of one balance row: `amount` to the balance, `reservedDelta` to the reservations. */
interface Change {
  amount: bigint;
  reservedDelta: bigint;
  /** Only if at least this much is available (one conditional UPDATE, never read-then-write). */
  minimumAvailable?: bigint;
}

/**
 * Runs the move `plan` gives once per idempotency key; inside a caller's transaction when given one. `unmoved`: the
 * error when no balance row took the change (none, or not enough available).
 */
async function applyOnce(
  db: LedgerDb,
  move: Move,
  expected: Expected,
  plan: (tx: Prisma.TransactionClient) => Promise<Change>,
  unmoved: (tx: Prisma.TransactionClient) => Promise<Error> = async () => noBalance(move.accountId),
): Promise<LedgerResult> {
  const run = async (tx: Prisma.TransactionClient) => {
    // Callers with the same key queue here: the second sees the first's committed entry instead of racing it
    // to the balance row, where it would find the money already moved and fail.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`ledger:${move.idempotencyKey}`}, 0))`;
    const prior = await priorEntry(tx, move, expected);
    if (prior) return prior;
    const entry = await moveAndRecord(tx, move, expected.kind, await plan(tx));
    if (!entry) throw await unmoved(tx);
    return asResult(entry, true);
  };
  return 'tx' in db ? run(db.tx) : db.$transaction(run);
}

/**
 * The one write to a balance row and its ledger entry, in one statement (the hot path of every task). No entry
 * when no row took the change.
 */
async function moveAndRecord(
  tx: Prisma.TransactionClient,
  move: Move,
  kind: LedgerEntryKind,
  change: Change,
): Promise<EntryRow | undefined> {
  const guard =
    change.minimumAvailable === undefined
      ? Prisma.empty
      : Prisma.sql`AND balance - reserved >= ${change.minimumAvailable}::bigint`;
  const [entry] = await tx.$queryRaw<EntryRow[]>`
    WITH moved AS (
      UPDATE balances
      SET balance = balance + ${change.amount}::bigint, reserved = reserved + ${change.reservedDelta}::bigint,
          updated_at = now()
      WHERE account_id = ${move.accountId} ${guard}
      RETURNING balance, reserved)
    INSERT INTO ledger_entries
      (account_id, kind, amount, reserved_delta, balance_after, reserved_after, idempotency_key, task_id, memo)
    SELECT ${move.accountId}::text, ${kind}::"LedgerEntryKind", ${change.amount}::bigint,
           ${change.reservedDelta}::bigint, balance, reserved, ${move.idempotencyKey}::text,
           ${move.taskId ?? null}::text, ${move.memo ?? null}::text
    FROM moved
    RETURNING id, account_id, kind, amount, reserved_delta, balance_after, reserved_after, task_id`;
  return entry;
}

const noBalance = (accountId: string) => new LedgerError(`account ${accountId} has no balance`);

async function availableOf(tx: Prisma.TransactionClient, accountId: string): Promise<bigint> {
  const row = await tx.balance.findUnique({ where: { accountId } });
  if (!row) throw noBalance(accountId);
  return row.balance - row.reserved;
}

/** Locks the balance row for the rest of the transaction and returns what the task still holds reserved. */
async function lockAndReadHeld(tx: Prisma.TransactionClient, accountId: string, taskId: string): Promise<bigint> {
  const locked = await tx.$queryRaw<unknown[]>`SELECT 1 FROM balances WHERE account_id = ${accountId} FOR UPDATE`;
  if (locked.length === 0) throw noBalance(accountId);
  const [row] = await tx.$queryRaw<{ held: bigint }[]>`
    SELECT COALESCE(SUM(reserved_delta), 0)::bigint AS held FROM ledger_entries WHERE account_id = ${accountId} AND task_id = ${taskId}`;
  return row!.held;
}

function requirePositive(amount: bigint, what: string): void {
  if (amount <= 0n) throw new LedgerError(`${what} must be a positive amount, got ${amount}`);
}

/** Holds `amount` of the available balance for a task: one conditional UPDATE, never read-then-write. */
export async function reserve(db: LedgerDb, move: Move & { amount: bigint; taskId: string }): Promise<LedgerResult> {
  requirePositive(move.amount, 'reserve');
  return applyOnce(
    db,
    move,
    { kind: 'reserve', reservedDelta: move.amount },
    async () => ({ amount: 0n, reservedDelta: move.amount, minimumAvailable: move.amount }),
    async (tx) => new InsufficientFundsError(move.amount, await availableOf(tx, move.accountId)),
  );
}

/** Charges the actual cost of a task (at most what it holds) and releases the rest of its reservation. */
export async function charge(db: LedgerDb, move: Move & { amount: bigint; taskId: string }): Promise<LedgerResult> {
  if (move.amount < 0n) throw new LedgerError(`charge must not be negative, got ${move.amount}`);
  return applyOnce(db, move, { kind: 'charge', amount: -move.amount }, async (tx) => {
    const held = await lockAndReadHeld(tx, move.accountId, move.taskId);
    if (move.amount > held)
      throw new LedgerError(`charge of ${move.amount} exceeds the ${held} held for task ${move.taskId}`);
    return { amount: -move.amount, reservedDelta: -held };
  });
}

/** Releases everything a task still holds (its failure, or a cancellation). */
export async function release(db: LedgerDb, move: Move & { taskId: string }): Promise<LedgerResult> {
  return applyOnce(db, move, { kind: 'release' }, async (tx) => ({
    amount: 0n,
    reservedDelta: -(await lockAndReadHeld(tx, move.accountId, move.taskId)),
  }));
}

export type CreditKind = Extract<
  LedgerEntryKind,
  'deposit' | 'trial_credit' | 'adjustment' | 'x402_payment' | 'x402_topup'
>;

/** Adds to the balance: a deposit, a trial credit, an operator's adjustment or a settled x402 payment. */
export async function credit(db: LedgerDb, move: Move & { amount: bigint; kind: CreditKind }): Promise<LedgerResult> {
  requirePositive(move.amount, 'credit');
  return applyOnce(db, move, { kind: move.kind, amount: move.amount }, async () => ({
    amount: move.amount,
    reservedDelta: 0n,
  }));
}

export interface LedgerTotals {
  balance: bigint;
  reserved: bigint;
  /** Sum of charges: what the account has spent. */
  spent: bigint;
  /** Number of charged tasks. */
  charges: number;
}

export async function ledgerTotals(
  db: PrismaClient | Prisma.TransactionClient,
  accountId: string,
): Promise<LedgerTotals> {
  const [row] = await db.$queryRaw<{ balance: bigint; reserved: bigint; spent: bigint; charges: bigint }[]>`
    SELECT COALESCE(SUM(amount), 0)::bigint AS balance,
           COALESCE(SUM(reserved_delta), 0)::bigint AS reserved,
           COALESCE(-SUM(amount) FILTER (WHERE kind = 'charge'), 0)::bigint AS spent,
           COUNT(*) FILTER (WHERE kind = 'charge') AS charges
    FROM ledger_entries WHERE account_id = ${accountId}`;
  return { balance: row!.balance, reserved: row!.reserved, spent: row!.spent, charges: Number(row!.charges) };
}
