// GET /usage as CSV (`Accept: text/csv`): one line per row, the grouped fields, the counts, USD as exact decimal
// strings, then one column per pricing unit any row counted.
import { stringify } from 'csv-stringify/sync';
import { formatUsd } from '../../../domain/money.ts';
import type { PricingUnit } from '../../../catalog/pricing-units.ts';
import type { UsageGrouping, UsageRow } from '../../../generations/usage-report.ts';

const groupedColumns: Record<UsageGrouping, (row: UsageRow) => string[]> = {
  day: (row) => [row.day ?? ''],
  model: (row) => [row.model ?? ''],
  type: (row) => [row.type ?? ''],
  key: (row) => [row.keyId ?? '', row.keyName ?? ''],
};
const groupedHeaders: Record<UsageGrouping, string[]> = {
  day: ['day'],
  model: ['model'],
  type: ['type'],
  key: ['key_id', 'key_name'],
};

export function usageCsv(groupBy: UsageGrouping[], rows: UsageRow[]): string {
  const units = [...new Set(rows.flatMap((row) => Object.keys(row.units)))].sort();
  const header = [
    ...groupBy.flatMap((grouping) => groupedHeaders[grouping]),
    ...['tasks', 'completed', 'failed', 'cancelled', 'cost_usd', 'refunded_usd'],
    ...units,
  ];
  const lines = rows.map((row) => [
    ...groupBy.flatMap((grouping) => groupedColumns[grouping](row)),
    String(row.completed + row.failed + row.cancelled),
    String(row.completed),
    String(row.failed),
    String(row.cancelled),
    formatUsd(row.costMicros),
    formatUsd(row.refundedMicros),
    ...units.map((unit) => String(row.units[unit as PricingUnit] ?? 0)),
  ]);
  // A key name is the caller's own text: a spreadsheet must never run it as a formula.
  return stringify([header, ...lines], { escape_formulas: true });
}
