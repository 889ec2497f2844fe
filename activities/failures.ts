// A failure that the same input will meet again (the database refusing a value, a query our code got wrong) is
// non-retryable: retried, it would only loop. Outages (connection lost, pool exhausted, deadlock) stay retryable.
import { ApplicationFailure } from '@temporalio/activity';
import { Prisma } from '../src/generated/prisma/client.ts';
import { LedgerError } from '../src/ledger/ledger.ts';

// SQLSTATE classes: 22 data exception (NUL, bad encoding, out of range), 23 integrity constraint, 42 syntax/access.
const deterministicSqlClasses = new Set(['22', '23', '42']);
// Prisma's codes for a value or a query the database will always refuse.
const deterministicPrismaCodes = new Set([
  'P2000', 'P2003', 'P2004', 'P2005', 'P2006', 'P2007', 'P2011', 'P2012', 'P2019', 'P2020', 'P2023', 'P2033',
]); // prettier-ignore

/** The SQLSTATE behind a Prisma error raised through the driver adapter, when there is one. */
function sqlStateOf(error: Prisma.PrismaClientKnownRequestError): string | undefined {
  const cause = (error.meta?.driverAdapterError as { cause?: { originalCode?: unknown } } | undefined)?.cause;
  return typeof cause?.originalCode === 'string' ? cause.originalCode : undefined;
}

export function isDeterministicFailure(error: unknown): boolean {
  if (error instanceof Prisma.PrismaClientValidationError) return true;
  if (!(error instanceof Prisma.PrismaClientKnownRequestError)) return false;
  // A unique violation is how two racing attempts of an idempotent write meet: the retry finds the row.
  const sqlState = sqlStateOf(error);
  if (error.code === 'P2002' || sqlState === '23505') return false;
  if (sqlState) return deterministicSqlClasses.has(sqlState.slice(0, 2));
  return deterministicPrismaCodes.has(error.code);
}

/** The failure type of an error no retry can change, or undefined for one worth retrying. */
function nonRetryableType(error: unknown): string | undefined {
  // The ledger refusing a move (a zero amount, a key reused, no balance row) refuses it again on every retry.
  if (error instanceof LedgerError) return 'LedgerError';
  return isDeterministicFailure(error) ? 'DeterministicFailure' : undefined;
}

type Activity = (...args: never[]) => Promise<unknown>;

/**
 * Wraps each activity so a deterministic failure ends it at once, as a non-retryable `DeterministicFailure` (a
 * ledger refusal as a non-retryable `LedgerError`).
 */
export function classifyFailures<T extends Record<string, Activity>>(activities: T): T {
  const wrapped = Object.entries(activities).map(([name, activity]) => [
    name,
    async (...args: unknown[]) => {
      try {
        return await (activity as (...args: unknown[]) => Promise<unknown>)(...args);
      } catch (error) {
        const type = nonRetryableType(error);
        if (!type) throw error;
        throw ApplicationFailure.create({
          message: (error as Error).message,
          type,
          nonRetryable: true,
          cause: error as Error,
        });
      }
    },
  ]);
  return Object.fromEntries(wrapped) as T;
}
