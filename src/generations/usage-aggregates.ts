// The usage report's aggregates (usage_hourly): the transaction that ends a task adds it to its hour's row, stamped
// with the transaction's own time, the time its ledger entry gets, so a period's cost equals the ledger's charges.
import type { Prisma } from '../generated/prisma/client.ts';
import type { PricingUnits } from '../catalog/pricing-units.ts';

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

/** Within the ending transaction: adds the task to the row of its account, key, model, type and hour (UTC). */
export async function recordTaskUsage(tx: Prisma.TransactionClient, usage: EndedTaskUsage): Promise<void> {
  const one = (outcome: TaskOutcome) => (usage.outcome === outcome ? 1 : 0);
  await tx.$executeRaw`
    INSERT INTO usage_hourly AS u
      (account_id, hour, api_key_id, model, type, completed, failed, cancelled, cost, refunded, units)
    VALUES (${usage.accountId}, date_trunc('hour', now()::timestamptz(3), 'UTC'), ${usage.apiKeyId ?? ''},
      ${usage.model}, ${usage.type}, ${one('completed')}, ${one('failed')}, ${one('cancelled')},
      ${usage.costMicros}, ${usage.refundedMicros}, ${JSON.stringify(usage.units)}::jsonb)
    ON CONFLICT (account_id, hour, api_key_id, model, type) DO UPDATE SET
      completed = u.completed + EXCLUDED.completed, failed = u.failed + EXCLUDED.failed,
      cancelled = u.cancelled + EXCLUDED.cancelled, cost = u.cost + EXCLUDED.cost,
      refunded = u.refunded + EXCLUDED.refunded, units = usage_units_sum(u.units, EXCLUDED.units)`;
}
