// Budget alerts: an admission that brings a key's budget window to 80 % and then 100 % of its budget tells the account
// once per key, window and threshold. The alert row and the account stream's event are written in the admission's
// transaction (ON CONFLICT DO NOTHING: only the first admission to reach a threshold alerts); the webhook is started
// after the commit (budget-alert-notices.ts).
import { Prisma } from '../generated/prisma/client.ts';
import { usdNumber } from '../domain/money.ts';
import type { KeyPolicy } from './key-policy.ts';

/** The event's name on the account stream (`GET /events`) and at the account's webhook. */
export const budgetAlertEvent = 'key.budget_threshold' as const;
/** Percentages of a budget that alert, in order. */
export const budgetThresholds = [80, 100] as const;

/** The event's data, shaped as the budget_exceeded refusal's details. */
export interface BudgetAlertData {
  key_id: string;
  key_name: string;
  threshold: (typeof budgetThresholds)[number];
  limit: number;
  spent: number;
  reserved: number;
  window: string;
  resets_at: string | null;
}

/** A budgeted key of the admitted task's chain, with its window's spend once the task's cost is reserved. */
export interface ReservedBudget {
  key: { id: string; name: string };
  budget: NonNullable<KeyPolicy['budget']>;
  usage: { charged: bigint; reserved: bigint; start: Date; resetsAt: Date | null };
}

/** The thresholds a window's spend has reached (charged and reserved, as admission counts it). */
export function reachedThresholds({ budget, usage }: ReservedBudget) {
  const used = usage.charged + usage.reserved;
  return budgetThresholds.filter((threshold) => used * 100n >= budget.amountMicros * BigInt(threshold));
}

function alertData(reached: ReservedBudget, threshold: BudgetAlertData['threshold']): BudgetAlertData {
  return {
    key_id: reached.key.id,
    key_name: reached.key.name,
    threshold,
    limit: usdNumber(reached.budget.amountMicros),
    spent: usdNumber(reached.usage.charged),
    reserved: usdNumber(reached.usage.reserved),
    window: reached.budget.window,
    resets_at: reached.usage.resetsAt?.toISOString() ?? null,
  };
}

/**
 * Within the admission's transaction, after its reservation: records each threshold a key of the task's chain has
 * reached and no earlier admission recorded, and writes its event on the account stream as one of the task's
 * (the task's own insert has notified the account's streams in this transaction already). Returns how many it recorded.
 */
export async function recordBudgetAlerts(
  tx: Prisma.TransactionClient,
  task: { id: string; accountId: string },
  budgets: ReservedBudget[],
): Promise<number> {
  const rows = budgets.flatMap((reached) =>
    reachedThresholds(reached).map(
      (threshold) =>
        Prisma.sql`(${reached.key.id}, ${reached.usage.start}::date, ${threshold}::int, ${task.accountId}, ${task.id},
          ${JSON.stringify(alertData(reached, threshold))}::jsonb)`,
    ),
  );
  if (rows.length === 0) return 0;
  return tx.$executeRaw`
    WITH alerts AS (
      INSERT INTO key_budget_alerts (api_key_id, window_start, threshold, account_id, task_id, data)
      VALUES ${Prisma.join(rows)}
      ON CONFLICT DO NOTHING
      RETURNING api_key_id, threshold, account_id, task_id, data
    )
    INSERT INTO task_events (task_id, account_id, type, data)
    SELECT task_id, account_id, ${budgetAlertEvent}, data FROM alerts ORDER BY threshold, api_key_id`;
}
