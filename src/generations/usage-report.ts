// An account's usage over a period (GET /usage, MCP get_usage), summed from the hourly aggregates the settling
// transactions keep (usage-aggregates.ts): one index range of the account's hours, never a scan of its tasks.
import type { PrismaClient } from '../db/prisma.ts';
import { Prisma } from '../generated/prisma/client.ts';
import type { PricingUnits } from '../catalog/pricing-units.ts';

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

// The SQL of each grouping (identifiers of our own, never the caller's text).
const groupColumns: Record<UsageGrouping, string> = {
  day: `to_char(date_trunc('day', u.hour, 'UTC') AT TIME ZONE 'UTC', 'YYYY-MM-DD')`,
  model: 'u.model',
  type: 'u.type',
  key: 'u.api_key_id',
};

interface SummedRow {
  day?: string;
  model?: string;
  type?: string;
  key?: string;
  key_name?: string | null;
  completed: bigint;
  failed: bigint;
  cancelled: bigint;
  cost: bigint;
  refunded: bigint;
  units: Record<string, string> | null;
}

/** Every grouping's rows in a stable order (day, then model, type, key), and their totals. */
export async function usageReport(prisma: PrismaClient, query: UsageQuery): Promise<UsageReport> {
  const groups = usageGroupings.filter((grouping) => query.groupBy.includes(grouping));
  const names = groups.map((grouping) => `"${grouping}"`).join(', ');
  // Each list of grouped columns, with its comma, or nothing when only totals are asked for.
  const leading = (columns: string) => Prisma.raw(groups.length ? `${columns}, ` : '');
  const groupedBy = Prisma.raw(groups.length ? `GROUP BY ${names}` : '');
  const selected = groups.map((grouping) => `${groupColumns[grouping]} AS "${grouping}"`).join(', ');
  const keyName = groups.includes('key') ? ', (SELECT name FROM api_keys k WHERE k.id = c.key) AS key_name' : '';
  const rows = await prisma.$queryRaw<SummedRow[]>`
    WITH hours AS (
      SELECT ${leading(selected)} u.completed, u.failed, u.cancelled, u.cost, u.refunded, u.units
      FROM usage_hourly u
      WHERE u.account_id = ${query.accountId} AND u.hour >= ${query.from} AND u.hour < ${query.to}
        ${query.onlyKeyId ? Prisma.sql`AND u.api_key_id = ${query.onlyKeyId}` : Prisma.empty}
    ),
    counts AS (
      SELECT ${leading(names)} sum(completed)::bigint AS completed, sum(failed)::bigint AS failed,
             sum(cancelled)::bigint AS cancelled, sum(cost)::bigint AS cost, sum(refunded)::bigint AS refunded
      FROM hours ${groupedBy}
    ),
    units AS (
      SELECT ${leading(names)} jsonb_object_agg(name, total) AS units
      FROM (
        SELECT ${leading(names)} name, sum(value::numeric)::text AS total
        FROM hours, jsonb_each_text(hours.units) AS pairs (name, value)
        GROUP BY ${leading(names)} name
      ) AS named ${groupedBy}
    )
    SELECT c.*, units.units ${Prisma.raw(keyName)}
    FROM counts c LEFT JOIN units ${Prisma.raw(groups.length ? `USING (${names})` : 'ON true')}
    WHERE c.completed + c.failed + c.cancelled > 0
    ${Prisma.raw(groups.length ? `ORDER BY ${names}` : '')}`;
  const reportRows = rows.map(toUsageRow);
  return { rows: reportRows, totals: totalOf(reportRows) };
}

function toUsageRow(row: SummedRow): UsageRow {
  const units = Object.fromEntries(Object.entries(row.units ?? {}).map(([name, total]) => [name, Number(total)]));
  return {
    ...(row.day !== undefined && { day: row.day }),
    ...(row.model !== undefined && { model: row.model }),
    ...(row.type !== undefined && { type: row.type }),
    ...(row.key !== undefined && { keyId: row.key || null, keyName: row.key_name ?? null }),
    completed: row.completed,
    failed: row.failed,
    cancelled: row.cancelled,
    costMicros: row.cost,
    refundedMicros: row.refunded,
    units,
  };
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
    for (const [name, count] of Object.entries(row.units)) totals.units[name] = (totals.units[name] ?? 0) + count;
  }
  return totals;
}
