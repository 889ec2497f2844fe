import { pricingUnitNames } from '../../../catalog/pricing-units.ts';
import { usagePeriod } from '../../../generations/usage-period.ts';
import { usageGroupings } from '../../../generations/usage-report.ts';
import { z } from '../../schemas/zod.ts';

/** A day (`YYYY-MM-DD`) or an instant (ISO 8601 with an offset), UTC. */
const dayOrInstant = (name: string, description: string) =>
  z
    .union([z.iso.date(), z.iso.datetime({ offset: true })], {
      error: 'must be a date (YYYY-MM-DD) or an ISO 8601 timestamp with an offset',
    })
    .optional()
    .openapi({ param: { name, in: 'query' }, description, example: '2026-11-01' });

const groupingList = new RegExp(`^(${usageGroupings.join('|')})(,(${usageGroupings.join('|')}))*$`);

export const UsageQuerySchema = z
  .object({
    from: dayOrInstant(
      'from',
      'Start of the period (inclusive): a day starts at 00:00 UTC, a timestamp is rounded down to its hour. Default: 29 days before today',
    ),
    to: dayOrInstant(
      'to',
      'End of the period: a day is included whole, a timestamp (exclusive) is rounded up to the next hour. Default: now',
    ),
    group_by: z
      .string()
      .regex(groupingList, `must be a comma-separated list of ${usageGroupings.join(', ')}`)
      .optional()
      .openapi({
        param: { name: 'group_by', in: 'query' },
        description: 'Comma-separated: `day`, `model`, `type`, `key`; none: one row for the whole period',
        example: 'day,model',
      }),
  })
  .superRefine((query, ctx) => {
    if (!query.from || !query.to) return;
    const period = usagePeriod(query);
    if (period.from >= period.to) ctx.addIssue({ code: 'custom', path: ['to'], message: 'must be after from' });
  });

const units = z.partialRecord(z.enum(pricingUnitNames), z.number()).openapi({
  description:
    "What the tasks counted in their models' own pricing units, by name: `images`, `videos`, `audio_files`, `models_3d`, `texts` (per-output prices), `output_seconds`, `characters`, `input_minutes`, `input_tokens`, `output_tokens`, `requests` (flat prices)",
  example: { images: 12, output_seconds: 30 },
});

const usageCounts = {
  tasks: z.number().int().openapi({ description: 'Tasks that ended in the period: completed + failed + cancelled' }),
  completed: z.number().int(),
  failed: z.number().int(),
  cancelled: z.number().int(),
  cost: z.number().openapi({ description: 'USD charged for them (the ledger’s charges for the period)' }),
  refunded: z.number().openapi({
    description: 'USD they held and got back: a failed task’s reservation, what a completed one did not use',
  }),
  units,
};

export const UsageTotalsSchema = z.object(usageCounts).openapi('UsageTotals');

export const UsageRowSchema = z
  .object({
    day: z.string().optional().openapi({ description: 'With `group_by` day: the UTC day', example: '2026-11-27' }),
    model: z.string().optional(),
    type: z.string().optional(),
    key_id: z
      .string()
      .nullable()
      .optional()
      .openapi({ description: 'With `group_by` key: the key that created the tasks; null for none (x402)' }),
    key_name: z.string().nullable().optional(),
    ...usageCounts,
  })
  .openapi('UsageRow');

export const UsageReportSchema = z
  .object({
    from: z.string().openapi({ description: 'The period covered, as rounded: start (inclusive)' }),
    to: z.string().openapi({ description: 'End (exclusive)' }),
    group_by: z.array(z.enum(usageGroupings)),
    rows: z
      .array(UsageRowSchema)
      .openapi({ description: 'Ordered by the grouped fields; groups without tasks left out' }),
    totals: UsageTotalsSchema,
  })
  .openapi('UsageReport');
