// What each key's tasks reserve and are charged, by the UTC day each task was admitted (key_spend), written in the
// transactions that move the account's money: a budget is checked under the key's row lock, so concurrent
// admissions can never overspend it. A task counts against its key and every key above it (the keys that made it).
import type { PrismaClient } from '../db/prisma.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { formatUsd, usdNumber } from '../domain/money.ts';
import { type BudgetWindow, KeyPolicyError, type KeyPolicy, policyOf, requestRefusal } from './key-policy.ts';
import { recordBudgetAlerts, type ReservedBudget } from './key-budget-alerts.ts';

type Db = PrismaClient | Prisma.TransactionClient;
const dayMs = 86_400_000;

/** The UTC day an instant falls in, as the `day` column holds it. */
export const utcDay = (at: Date) => new Date(Math.floor(at.getTime() / dayMs) * dayMs);

/** The current window of a budget: its first day, and when the next starts (never, for `total`). */
export function budgetWindowAt(window: BudgetWindow, now: Date): { start: Date; resetsAt: Date | null } {
  const today = utcDay(now);
  switch (window) {
    case 'day':
      return { start: today, resetsAt: new Date(today.getTime() + dayMs) };
    case 'week': {
      // getUTCDay: 0 is Sunday; a week starts on Monday (ISO 8601).
      const start = new Date(today.getTime() - ((today.getUTCDay() + 6) % 7) * dayMs);
      return { start, resetsAt: new Date(start.getTime() + 7 * dayMs) };
    }
    case 'month':
      return {
        start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
        resetsAt: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
      };
    case 'total':
      return { start: new Date(0), resetsAt: null };
  }
}

export interface WindowSpend {
  charged: bigint;
  reserved: bigint;
}

/** What a key's tasks were charged and hold reserved since `start`. */
export async function spendSince(db: Db, keyId: string, start: Date): Promise<WindowSpend> {
  const [row] = await db.$queryRaw<{ charged: bigint | null; reserved: bigint | null }[]>`
    SELECT sum(charged)::bigint AS charged, sum(reserved)::bigint AS reserved
    FROM key_spend WHERE api_key_id = ${keyId} AND day >= ${start}::date`;
  return { charged: row?.charged ?? 0n, reserved: row?.reserved ?? 0n };
}

/** A key's budget window with what is spent, held and left of it (GET /keys/current, the refusal's details). */
export async function budgetUsage(db: Db, keyId: string, budget: NonNullable<KeyPolicy['budget']>, now = new Date()) {
  const { start, resetsAt } = budgetWindowAt(budget.window, now);
  const spend = await spendSince(db, keyId, start);
  const left = budget.amountMicros - spend.charged - spend.reserved;
  return { ...spend, remaining: left > 0n ? left : 0n, start, resetsAt };
}

/** The task's key and every key above it, each locked for this transaction (the child first, then its makers). */
async function lockedChain(tx: Prisma.TransactionClient, keyId: string) {
  const chain: { id: string; name: string; policy: KeyPolicy | null }[] = [];
  for (let id: string | null = keyId; id !== null && chain.length < 32;) {
    const [row]: { id: string; name: string; parent_id: string | null; policy: unknown }[] = await tx.$queryRaw`
      SELECT id, name, parent_id, policy FROM api_keys WHERE id = ${id} FOR UPDATE`;
    if (!row) break;
    chain.push({ id: row.id, name: row.name, policy: policyOf(row.policy) });
    id = row.parent_id;
  }
  return chain;
}

/** The key and the keys above it, without locks (a settlement only gives back; a quote only looks). */
async function chainOf(db: Db, keyId: string): Promise<{ id: string; policy: KeyPolicy | null }[]> {
  const rows = await db.$queryRaw<{ id: string; policy: unknown }[]>`
    WITH RECURSIVE chain AS (
      SELECT id, parent_id, policy, 1 AS depth FROM api_keys WHERE id = ${keyId}
      UNION ALL
      SELECT k.id, k.parent_id, k.policy, c.depth + 1 FROM api_keys k JOIN chain c ON k.id = c.parent_id
      WHERE c.depth < 32
    ) SELECT id, policy FROM chain ORDER BY depth`;
  return rows.map((row) => ({ id: row.id, policy: policyOf(row.policy) }));
}

/** What admission would answer the request now, as far as the key's chain goes (a quote; nothing is held). */
export async function keyRefusal(
  db: Db,
  keyId: string,
  request: { model: string; type: string; costMicros: bigint },
  now = new Date(),
): Promise<KeyPolicyError | null> {
  for (const key of await chainOf(db, keyId)) {
    const refusal =
      requestRefusal(key.policy, request) ??
      (key.policy?.budget
        ? budgetRefusal(key.policy.budget, await budgetUsage(db, key.id, key.policy.budget, now), request.costMicros)
        : null);
    if (refusal) return refusal;
  }
  return null;
}

/**
 * Within the admission's transaction: refuses the task if any key of its chain does not allow it (model, type, cost,
 * budget), else adds its cost to each key's reserved spend on the task's day, and records the budget alerts that
 * brings about (key-budget-alerts.ts).
 */
export async function reserveKeySpend(
  tx: Prisma.TransactionClient,
  task: {
    id: string;
    accountId: string;
    apiKeyId: string;
    model: string;
    type: string;
    costMicros: bigint;
    createdAt: Date;
  },
): Promise<void> {
  const chain = await lockedChain(tx, task.apiKeyId);
  const budgets: ReservedBudget[] = [];
  for (const key of chain) {
    const refusal = requestRefusal(key.policy, task);
    if (refusal) throw refusal;
    const budget = key.policy?.budget;
    if (!budget) continue;
    const usage = await budgetUsage(tx, key.id, budget, task.createdAt);
    const overBudget = budgetRefusal(budget, usage, task.costMicros);
    if (overBudget) throw overBudget;
    budgets.push({ key, budget, usage: { ...usage, reserved: usage.reserved + task.costMicros } });
  }
  const day = utcDay(task.createdAt);
  for (const key of chain)
    await tx.$executeRaw`
      INSERT INTO key_spend (api_key_id, day, reserved) VALUES (${key.id}, ${day}::date, ${task.costMicros})
      ON CONFLICT (api_key_id, day) DO UPDATE SET reserved = key_spend.reserved + EXCLUDED.reserved`;
  await recordBudgetAlerts(tx, task, budgets);
}

/** The refusal a budget answers a cost with, given its window's usage, or null while the window has room for it. */
function budgetRefusal(
  budget: NonNullable<KeyPolicy['budget']>,
  usage: Awaited<ReturnType<typeof budgetUsage>>,
  costMicros: bigint,
): KeyPolicyError | null {
  if (usage.charged + usage.reserved + costMicros <= budget.amountMicros) return null;
  return new KeyPolicyError(
    'budget_exceeded',
    `This request costs $${formatUsd(costMicros)}; this API key's budget of $${formatUsd(budget.amountMicros)} per ` +
      `${budget.window} has $${formatUsd(usage.remaining)} left` +
      (usage.resetsAt ? `, until ${usage.resetsAt.toISOString()}.` : '.'),
    {
      details: {
        limit: usdNumber(budget.amountMicros),
        spent: usdNumber(usage.charged),
        reserved: usdNumber(usage.reserved),
        window: budget.window,
        resets_at: usage.resetsAt?.toISOString() ?? null,
      },
    },
  );
}

/**
 * Within the transaction that ends the task: its reservation leaves each key's reserved spend, and what it was
 * charged (0 for a failed task: the refund gives the budget back) joins their charged spend, on its admission day.
 */
export async function settleKeySpend(
  tx: Prisma.TransactionClient,
  task: { apiKeyId: string | null; costReserved: bigint; createdAt: Date },
  chargedMicros: bigint,
): Promise<void> {
  if (!task.apiKeyId) return;
  const day = utcDay(task.createdAt);
  for (const { id } of await chainOf(tx, task.apiKeyId))
    await tx.$executeRaw`
      UPDATE key_spend SET reserved = GREATEST(reserved - ${task.costReserved}, 0), charged = charged + ${chargedMicros}
      WHERE api_key_id = ${id} AND day = ${day}::date`;
}
