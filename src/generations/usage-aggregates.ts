// The usage report's aggregates (usage_daily, its keyless usage_daily_totals, usage_hourly): the transaction that ends a
// task adds it to its day's and its hour's rows, stamped with the transaction's own time, the time its ledger entry gets, so a period's cost equals
// the ledger's charges for it.
import { Prisma } from '../generated/prisma/client.ts';
import { pricingUnitNames, type PricingUnits } from '../catalog/pricing-units.ts';

export type TaskOutcome = 'completed' | 'failed' | 'cancelled';

export interface EndedTaskUsage {
  accountId: string;
  apiKeyId: string | null;
  model: string;
  type: string;
  outcome: TaskOutcome;
  /** What the account was charged for it. */
  costMicros: bigint;
  /** What it held and got back: the whole reservation of a failed task, what a completed one did not use. */
  refundedMicros: bigint;
  units: PricingUnits;
}

/** The columns every aggregate row adds up (our own identifiers, never a caller's text). */
/** A task's outcome and money; then its pricing units, one column each. */
export const outcomeColumns = ['completed', 'failed', 'cancelled', 'cost', 'refunded'];
export const usageCountColumns = [...outcomeColumns, ...pricingUnitNames];
const columnList = Prisma.raw(usageCountColumns.join(', '));
const addedUp = (table: string) =>
  Prisma.raw(usageCountColumns.map((column) => `${column} = ${table}.${column} + EXCLUDED.${column}`).join(', '));

/**
 * Within the ending transaction: adds the task to its account, key, model and type's rows of its UTC day and hour
 * (and to its account's day without the key).
 * `at`: when it ended, for tasks recorded later (the benchmark's seed, tests); by default the transaction's time.
 */
export async function recordTaskUsage(tx: Prisma.TransactionClient, usage: EndedTaskUsage, at?: Date): Promise<void> {
  const one = (outcome: TaskOutcome) => (usage.outcome === outcome ? 1 : 0);
  const counts = [
    one('completed'),
    one('failed'),
    one('cancelled'),
    usage.costMicros,
    usage.refundedMicros,
    ...pricingUnitNames.map((unit) => usage.units[unit] ?? 0),
  ];
  const values = Prisma.join(counts.map((count) => Prisma.sql`${count}::bigint`));
  const key = Prisma.sql`${usage.apiKeyId ?? ''}, ${usage.model}, ${usage.type}`;
  // now() is the transaction's start, as every row it writes gets (at the columns' millisecond precision).
  await tx.$executeRaw`
    WITH settled AS (SELECT ${at ?? null}::timestamptz(3) AS given, now()::timestamptz(3) AS now),
    ended AS (SELECT coalesce(given, now) AS at FROM settled),
    hourly AS (
      INSERT INTO usage_hourly AS u (account_id, hour, api_key_id, model, type, ${columnList})
      SELECT ${usage.accountId}, date_trunc('hour', at, 'UTC'), ${key}, ${values} FROM ended
      ON CONFLICT (account_id, hour, api_key_id, model, type) DO UPDATE SET ${addedUp('u')}
    ),
    totals AS (
      INSERT INTO usage_daily_totals AS t (account_id, day, model, type, ${columnList})
      SELECT ${usage.accountId}, (at AT TIME ZONE 'UTC')::date, ${usage.model}, ${usage.type}, ${values} FROM ended
      ON CONFLICT (account_id, day, model, type) DO UPDATE SET ${addedUp('t')}
    )
    INSERT INTO usage_daily AS d (account_id, day, api_key_id, model, type, ${columnList})
    SELECT ${usage.accountId}, (at AT TIME ZONE 'UTC')::date, ${key}, ${values} FROM ended
    ON CONFLICT (account_id, day, api_key_id, model, type) DO UPDATE SET ${addedUp('d')}`;
}
