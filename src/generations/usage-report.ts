// An account's usage over a period (GET /usage, MCP get_usage), summed from the aggregates the settling transactions
// keep (usage-aggregates.ts): whole UTC days from usage_daily (or usage_daily_totals when the key is not asked about),
// the hours at the period's edges from usage_hourly.
// Index ranges of the account's days and hours, never a scan of its tasks.
import type { PrismaClient } from '../db/prisma.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { type PricingUnit, pricingUnitNames, type PricingUnits } from '../catalog/pricing-units.ts';
import { outcomeColumns, usageCountColumns } from './usage-aggregates.ts';

export const usageGroupings = ['day', 'model', 'type', 'key'] as const;
export type UsageGrouping = (typeof usageGroupings)[number];

export interface UsageQuery {
  accountId: string;
  /** A key with a policy sees the usage of the tasks it created. */
  onlyKeyId?: string;
  /** Whole hours (UTC): `from` inclusive, `to` exclusive. */
  from: Date;
  to: Date;
  groupBy: UsageGrouping[];
}

export interface UsageCounts {
  completed: bigint;
  failed: bigint;
  cancelled: bigint;
  costMicros: bigint;
  refundedMicros: bigint;
  /** The units counted, those above 0 only. */
  units: PricingUnits;
}

export interface UsageRow extends UsageCounts {
  day?: string;
  model?: string;
  type?: string;
  /** null: tasks no key created (paid with x402, or from before keys were recorded). */
  keyId?: string | null;
  keyName?: string | null;
}

export interface UsageReport {
  rows: UsageRow[];
  totals: UsageCounts;
}

// The SQL of each grouping over the union of day and hour rows (our own identifiers, never the caller's text).
const groupColumns: Record<UsageGrouping, string> = { day: 'day', model: 'model', type: 'type', key: 'api_key_id' };
const counts = Prisma.raw(usageCountColumns.join(', '));
// Units are answered as JSON numbers: read as float8 (exact below 2^53), hundreds of rows need no BigInt for them.
const summedCounts = Prisma.raw(
  [
    ...outcomeColumns.map((column) => `sum(${column})::bigint AS ${column}`),
    ...pricingUnitNames.map((unit) => `sum(${unit})::float8 AS ${unit}`),
  ].join(', '),
);

type SummedRow = Record<PricingUnit, number> & {
  day?: Date;
  model?: string;
  type?: string;
  api_key_id?: string;
  key_name?: string | null;
  completed: bigint;
  failed: bigint;
  cancelled: bigint;
  cost: bigint;
  refunded: bigint;
};

const dayMs = 86_400_000;

/** The whole UTC days within the period, read by the day; what is left at either edge is read by the hour. */
function splitPeriod({ from, to }: Pick<UsageQuery, 'from' | 'to'>) {
  const firstDay = Math.ceil(from.getTime() / dayMs) * dayMs;
  const endDay = Math.floor(to.getTime() / dayMs) * dayMs;
  if (firstDay >= endDay) return { days: null, hours: [{ from, to }] };
  const days = { from: new Date(firstDay), to: new Date(endDay) };
  return {
    days,
    hours: [
      { from, to: days.from },
      { from: days.to, to },
    ],
  };
}

/** Every grouping's rows in a stable order (day, then model, type, key), and their totals. */
export async function usageReport(prisma: PrismaClient, query: UsageQuery): Promise<UsageReport> {
  const groups = usageGroupings.filter((grouping) => query.groupBy.includes(grouping));
  const grouped = groups.map((grouping) => groupColumns[grouping]).join(', ');
  const { days, hours } = splitPeriod(query);
  const ofKey = query.onlyKeyId ? Prisma.sql`AND api_key_id = ${query.onlyKeyId}` : Prisma.empty;
  // One branch per range, so each is one index range scan of (account_id, day or hour).
  // Without the key in the report, the whole days come from the keyless table: one row per day, model and type.
  const byKey = query.onlyKeyId !== undefined || groups.includes('key');
  const dailyTable = Prisma.raw(byKey ? 'usage_daily' : `usage_daily_totals`);
  const dailyKey = Prisma.raw(byKey ? 'api_key_id' : `'' AS api_key_id`);
  const daily = days
    ? [
        Prisma.sql`SELECT day, ${dailyKey}, model, type, ${counts} FROM ${dailyTable}
          WHERE account_id = ${query.accountId} AND day >= ${days.from}::date AND day < ${days.to}::date ${ofKey}`,
      ]
    : [];
  const hourly = hours.map(
    (
      range,
    ) => Prisma.sql`SELECT (hour AT TIME ZONE 'UTC')::date AS day, api_key_id, model, type, ${counts} FROM usage_hourly
      WHERE account_id = ${query.accountId} AND hour >= ${range.from} AND hour < ${range.to} ${ofKey}`,
  );
  const rows = await prisma.$queryRaw<SummedRow[]>`
    WITH ended AS (${Prisma.join([...daily, ...hourly], ' UNION ALL ')}),
    summed AS (
      SELECT ${Prisma.raw(groups.length ? `${grouped}, ` : '')} ${summedCounts}
      FROM ended ${Prisma.raw(groups.length ? `GROUP BY ${grouped}` : '')}
    )
    SELECT summed.* ${Prisma.raw(groups.includes('key') ? ', k.name AS key_name' : '')}
    FROM summed ${Prisma.raw(groups.includes('key') ? 'LEFT JOIN api_keys k ON k.id = summed.api_key_id' : '')}
    WHERE completed + failed + cancelled > 0
    ${Prisma.raw(groups.length ? `ORDER BY ${grouped}` : '')}`;
  const reportRows = rows.map(toUsageRow);
  return { rows: reportRows, totals: totalOf(reportRows) };
}

function unitsOf(row: Record<PricingUnit, number>): PricingUnits {
  const units: PricingUnits = {};
  for (const unit of pricingUnitNames) if (row[unit] > 0) units[unit] = row[unit];
  return units;
}

// Built property by property: spreading conditional objects costs V8 ~10 µs a row, a report has hundreds.
function toUsageRow(row: SummedRow): UsageRow {
  const usage: UsageRow = {
    completed: row.completed,
    failed: row.failed,
    cancelled: row.cancelled,
    costMicros: row.cost,
    refundedMicros: row.refunded,
    units: unitsOf(row),
  };
  if (row.day !== undefined) usage.day = row.day.toISOString().slice(0, 10);
  if (row.model !== undefined) usage.model = row.model;
  if (row.type !== undefined) usage.type = row.type;
  if (row.api_key_id !== undefined) {
    usage.keyId = row.api_key_id || null;
    usage.keyName = row.key_name ?? null;
  }
  return usage;
}

function totalOf(rows: UsageRow[]): UsageCounts {
  const totals: UsageCounts = {
    completed: 0n,
    failed: 0n,
    cancelled: 0n,
    costMicros: 0n,
    refundedMicros: 0n,
    units: {},
  };
  for (const row of rows) {
    totals.completed += row.completed;
    totals.failed += row.failed;
    totals.cancelled += row.cancelled;
    totals.costMicros += row.costMicros;
    totals.refundedMicros += row.refundedMicros;
    for (const [unit, count] of Object.entries(row.units) as [PricingUnit, number][])
      totals.units[unit] = (totals.units[unit] ?? 0) + count;
  }
  return totals;
}
