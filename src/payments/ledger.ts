// Every balance change is one UPDATE of the balance row plus one append-only ledger entry, in one transaction,
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

const asResult = (
  entry: {
    id: bigint;
    kind: LedgerEntryKind;
    amount: bigint;
    reservedDelta: bigint;
    balanceAfter: bigint;
    reservedAfter: bigint;
  },
  applied: boolean,
): LedgerResult => ({
  applied,
  entryId: entry.id,
  kind: entry.kind,
  amount: entry.amount,
  reservedDelta: entry.reservedDelta,
  balance: entry.balanceAfter,
  reserved: entry.reservedAfter,
});

/** What a repeat must match: the same operation on the same account and task, for the same amount. */
interface Expected {
  kind: LedgerEntryKind;
  /** The entry's amount / reserved change this request would write, when the request fixes it. */
  amount?: bigint;
  reservedDelta?: bigint;
}

async function priorEntry(tx: Prisma.TransactionClient, move: Move, expected: Expected): Promise<LedgerResult | null> {
  const entry = await tx.ledgerEntry.findUnique({ where: { idempotencyKey: move.idempotencyKey } });
  if (!entry) return null;
  const same =
    entry.accountId === move.accountId &&
    entry.kind === expected.kind &&
    entry.taskId === (move.taskId ?? null) &&
    (expected.amount === undefined || entry.amount === expected.amount) &&
    (expected.reservedDelta === undefined || entry.reservedDelta === expected.reservedDelta);
  if (!same) {
    throw new LedgerError(
      `idempotency key ${move.idempotencyKey} was already used for a different operation (${entry.kind} of ${entry.amount}/${entry.reservedDelta} on ${entry.accountId}, task ${entry.taskId ?? 'none'})`,
    );
  }
  return asResult(entry, false);
}

/** Runs `apply` once per idempotency key; inside a caller's transaction when given one. */
async function applyOnce(
  db: LedgerDb,
  move: Move,
  expected: Expected,
  apply: (tx: Prisma.TransactionClient) => Promise<Moved>,
): Promise<LedgerResult> {
  const kind = expected.kind;
  const run = async (tx: Prisma.TransactionClient) => {
    // Callers with the same key queue here: the second sees the first's committed entry instead of racing it
    // to the balance row, where it would find the money already moved and fail.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`ledger:${move.idempotencyKey}`}, 0))`;
    const prior = await priorEntry(tx, move, expected);
    if (prior) return prior;
    const moved = await apply(tx);
    const entry = await tx.ledgerEntry.create({
      data: {
        accountId: move.accountId,
        kind,
        amount: moved.amount,
        reservedDelta: moved.reservedDelta,
        balanceAfter: moved.balance,
        reservedAfter: moved.reserved,
        idempotencyKey: move.idempotencyKey,
        taskId: move.taskId,
        memo: move.memo,
      },
    });
    return asResult(entry, true);
  };
  return 'tx' in db ? run(db.tx) : db.$transaction(run);
}

async function availableOf(tx: Prisma.TransactionClient, accountId: string): Promise<bigint> {
  const row = await tx.balance.findUnique({ where: { accountId } });
  if (!row) throw new LedgerError(`account ${accountId} has no balance`);
  return row.balance - row.reserved;
}

/** Locks the balance row for the rest of the transaction and returns what the task still holds reserved. */
async function lockAndReadHeld(tx: Prisma.TransactionClient, accountId: string, taskId: string): Promise<bigint> {
  const locked = await tx.$queryRaw<unknown[]>`SELECT 1 FROM balances WHERE account_id = ${accountId} FOR UPDATE`;
  if (locked.length === 0) throw new LedgerError(`account ${accountId} has no balance`);
  const [row] = await tx.$queryRaw<{ held: bigint }[]>`
    SELECT COALESCE(SUM(reserved_delta), 0)::bigint AS held FROM ledger_entries WHERE account_id = ${accountId} AND task_id = ${taskId}`;
  return row!.held;
}

type Moved = Omit<LedgerResult, 'applied' | 'entryId' | 'kind'>;

/**
 * The one write to a balance row: adds `amount` to the balance and `reservedDelta` to the reservations. With
 * `minimumAvailable`, only if that much is available (one conditional UPDATE). Null when no row was changed.
 */
async function moveBalance(
  tx: Prisma.TransactionClient,
  accountId: string,
  change: { amount: bigint; reservedDelta: bigint },
  minimumAvailable?: bigint,
): Promise<Moved | null> {
  const guard =
    minimumAvailable === undefined ? Prisma.empty : Prisma.sql`AND balance - reserved >= ${minimumAvailable}`;
  const [row] = await tx.$queryRaw<{ balance: bigint; reserved: bigint }[]>`
    UPDATE balances SET balance = balance + ${change.amount}, reserved = reserved + ${change.reservedDelta}, updated_at = now()
    WHERE account_id = ${accountId} ${guard}
    RETURNING balance, reserved`;
  return row ? { ...change, balance: row.balance, reserved: row.reserved } : null;
}

async function moveExistingBalance(
  tx: Prisma.TransactionClient,
  accountId: string,
  change: { amount: bigint; reservedDelta: bigint },
): Promise<Moved> {
  const moved = await moveBalance(tx, accountId, change);
  if (!moved) throw new LedgerError(`account ${accountId} has no balance`);
  return moved;
}

function requirePositive(amount: bigint, what: string): void {
  if (amount <= 0n) throw new LedgerError(`${what} must be a positive amount, got ${amount}`);
}

/** Holds `amount` of the available balance for a task: one conditional UPDATE, never read-then-write. */
export async function reserve(db: LedgerDb, move: Move & { amount: bigint; taskId: string }): Promise<LedgerResult> {
  requirePositive(move.amount, 'reserve');
  return applyOnce(db, move, { kind: 'reserve', reservedDelta: move.amount }, async (tx) => {
    const moved = await moveBalance(tx, move.accountId, { amount: 0n, reservedDelta: move.amount }, move.amount);
    if (!moved) throw new InsufficientFundsError(move.amount, await availableOf(tx, move.accountId));
    return moved;
  });
}

/** Charges the actual cost of a task (at most what it holds) and releases the rest of its reservation. */
export async function charge(db: LedgerDb, move: Move & { amount: bigint; taskId: string }): Promise<LedgerResult> {
  if (move.amount < 0n) throw new LedgerError(`charge must not be negative, got ${move.amount}`);
  return applyOnce(db, move, { kind: 'charge', amount: -move.amount }, async (tx) => {
    const held = await lockAndReadHeld(tx, move.accountId, move.taskId);
    if (move.amount > held)
      throw new LedgerError(`charge of ${move.amount} exceeds the ${held} held for task ${move.taskId}`);
    return moveExistingBalance(tx, move.accountId, { amount: -move.amount, reservedDelta: -held });
  });
}

/** Releases everything a task still holds (its failure, or a cancellation). */
export async function release(db: LedgerDb, move: Move & { taskId: string }): Promise<LedgerResult> {
  return applyOnce(db, move, { kind: 'release' }, async (tx) => {
    const held = await lockAndReadHeld(tx, move.accountId, move.taskId);
    return moveExistingBalance(tx, move.accountId, { amount: 0n, reservedDelta: -held });
  });
}

export type CreditKind = Extract<LedgerEntryKind, 'deposit' | 'trial_credit' | 'adjustment' | 'x402_payment'>;

/** Adds to the balance: a deposit, a trial credit, an operator's adjustment or a settled x402 payment. */
export async function credit(db: LedgerDb, move: Move & { amount: bigint; kind: CreditKind }): Promise<LedgerResult> {
  requirePositive(move.amount, 'credit');
  return applyOnce(db, move, { kind: move.kind, amount: move.amount }, async (tx) => {
    return moveExistingBalance(tx, move.accountId, { amount: move.amount, reservedDelta: 0n });
  });
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
