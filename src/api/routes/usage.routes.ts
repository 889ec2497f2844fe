import { usdNumber } from '../../domain/money.ts';
import { usagePeriod } from '../../generations/usage-period.ts';
import { type UsageCounts, usageGroupings, usageReport, type UsageRow } from '../../generations/usage-report.ts';
import { endpointDescriptions } from '../descriptions.ts';
import { defineEndpoint } from '../endpoint.ts';
import { UsageQuerySchema, UsageReportSchema } from '../schemas/usage.schemas.ts';
import { usageCsv } from '../usage-csv.ts';

const countsBody = (counts: UsageCounts) => ({
  tasks: Number(counts.completed + counts.failed + counts.cancelled),
  completed: Number(counts.completed),
  failed: Number(counts.failed),
  cancelled: Number(counts.cancelled),
  cost: usdNumber(counts.costMicros),
  refunded: usdNumber(counts.refundedMicros),
  units: counts.units,
});

const rowBody = (row: UsageRow) => ({
  ...(row.day !== undefined && { day: row.day }),
  ...(row.model !== undefined && { model: row.model }),
  ...(row.type !== undefined && { type: row.type }),
  ...(row.keyId !== undefined && { key_id: row.keyId, key_name: row.keyName ?? null }),
  ...countsBody(row),
});

export const usageEndpoints = [
  defineEndpoint({
    method: 'get',
    path: '/usage',
    operationId: 'getUsage',
    summary: 'Your usage by day, model, type and key',
    description: endpointDescriptions.getUsage,
    tags: ['Usage'],
    auth: 'any',
    request: { query: UsageQuerySchema },
    success: {
      status: 200,
      description: 'The usage of the period; as CSV with `Accept: text/csv`',
      schema: UsageReportSchema,
      csv: true,
    },
    handle: async ({ query, principal, ctx, req }) => {
      const given = query.group_by?.split(',') ?? [];
      const groupBy = usageGroupings.filter((grouping) => given.includes(grouping));
      const period = usagePeriod(query);
      const { apiKey } = principal;
      const report = await usageReport(ctx.prisma, {
        accountId: principal.account.id,
        ...(apiKey?.policy && { onlyKeyId: apiKey.id }),
        ...period,
        groupBy,
      });
      const body = {
        from: period.from.toISOString(),
        to: period.to.toISOString(),
        group_by: groupBy,
        rows: report.rows.map(rowBody),
        totals: countsBody(report.totals),
      };
      if (req.accepts(['application/json', 'text/csv']) !== 'text/csv') return { body };
      const file = `usage-${body.from.slice(0, 10)}-${body.to.slice(0, 10)}.csv`;
      return {
        body,
        csv: usageCsv(groupBy, report.rows),
        headers: { 'Content-Disposition': `attachment; filename="${file}"` },
      };
    },
  }),
];
