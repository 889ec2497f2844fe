// What each key's tasks reserve and are charged, by the UTC day each task was admitted (key_spend), written in the
// transactions that move the account's money: a budget is checked under the key's row lock, so concurrent
// admissions can never overspend it. A task counts against its key and every key above it (the keys that made it).
import type { PrismaClient } from '../db/prisma.ts';
import { Prisma } from '../generated/prisma/client.ts';
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

/** A budget's current window: what is spent, held and left of it, and its bounds. */
export type BudgetUsage = WindowSpend & { remaining: bigint; start: Date; resetsAt: Date | null };

/** A key's budget window with what is spent, held and left of it (GET /keys/current). */
export async function budgetUsage(
  db: Db,
  keyId: string,
  budget: NonNullable<KeyPolicy['budget']>,
  now = new Date(),
): Promise<BudgetUsage> {
  const { start, resetsAt } = budgetWindowAt(budget.window, now);
  const spend = await spendSince(db, keyId, start);
  const left = budget.amountMicros - spend.charged - spend.reserved;
  return { ...spend, remaining: left > 0n ? left : 0n, start, resetsAt };
}

// The key and the keys above it (parent_id never changes once a key is made), nearest first, at most 32 deep.
const chainSql = (keyId: string) => Prisma.sql`
  WITH RECURSIVE chain AS (
    SELECT id, parent_id, 1 AS depth FROM api_keys WHERE id = ${keyId}
    UNION ALL
    SELECT k.id, k.parent_id, c.depth + 1 FROM api_keys k JOIN chain c ON k.id = c.parent_id WHERE c.depth < 32
  )`;

interface ChainKey {
  id: string;
  name: string;
  policy: KeyPolicy | null;
}

/**
 * The task's key and every key above it, locked for this transaction in one statement: rows are locked in the
 * order the query returns them, the child first, then its makers, as every admission locks them.
 */
async function lockedChain(tx: Prisma.TransactionClient, keyId: string): Promise<ChainKey[]> {
  const rows = await tx.$queryRaw<{ id: string; name: string; policy: unknown }[]>`
    ${chainSql(keyId)}
    SELECT k.id, k.name, k.policy FROM api_keys k JOIN chain c ON c.id = k.id ORDER BY c.depth FOR UPDATE OF k`;
  return rows.map((row) => ({ ...row, policy: policyOf(row.policy) }));
}

/** The key and the keys above it, without locks (a quote only looks). */
async function chainOf(db: Db, keyId: string): Promise<ChainKey[]> {
  const rows = await db.$queryRaw<{ id: string; name: string; policy: unknown }[]>`
    ${chainSql(keyId)}
    SELECT k.id, k.name, k.policy FROM api_keys k JOIN chain c ON c.id = k.id ORDER BY c.depth`;
  return rows.map((row) => ({ ...row, policy: policyOf(row.policy) }));
}

/**
 * What each budgeted key of a chain spent in its current window, in one query. Read in a statement after the one that
 * locked the keys: a statement sees what committed before it began, so this one sees every admission that held a
 * lock this transaction waited for.
 */
async function windowSpends(db: Db, keys: Budgeted[], now: Date): Promise<Map<string, BudgetUsage>> {
  if (keys.length === 0) return new Map();
  const windows = keys.map((key) => ({ key, ...budgetWindowAt(key.budget.window, now) }));
  const rows = await db.$queryRaw<{ id: string; charged: bigint; reserved: bigint }[]>`
    SELECT w.id, coalesce(sum(s.charged), 0)::bigint AS charged, coalesce(sum(s.reserved), 0)::bigint AS reserved
    FROM unnest(${windows.map((w) => w.key.id)}::text[], ${windows.map((w) => w.start)}::date[]) AS w (id, start)
    LEFT JOIN key_spend s ON s.api_key_id = w.id AND s.day >= w.start
    GROUP BY w.id`;
  const spent = new Map(rows.map((row) => [row.id, row]));
  return new Map(
    windows.map(({ key, start, resetsAt }) => {
      const { charged, reserved } = spent.get(key.id) ?? { charged: 0n, reserved: 0n };
      const left = key.budget.amountMicros - charged - reserved;
      return [key.id, { charged, reserved, remaining: left > 0n ? left : 0n, start, resetsAt }];
    }),
  );
}

type Budgeted = ChainKey & { budget: NonNullable<KeyPolicy['budget']> };
const budgetedKeys = (chain: ChainKey[]): Budgeted[] =>
  chain.flatMap((key) => (key.policy?.budget ? [{ ...key, budget: key.policy.budget }] : []));

/** What admission would answer the request now, as far as the key's chain goes (a quote; nothing is held). */
export async function keyRefusal(
  db: Db,
  keyId: string,
  request: { model: string; type: string; costMicros: bigint },
  now = new Date(),
): Promise<KeyPolicyError | null> {
  return chainRefusal(await chainOf(db, keyId), request, (keys) => windowSpends(db, keys, now)).then(
    (checked) => checked.refusal,
  );
}

/**
 * The first refusal of a chain's policies (allowlists and caps first, then budgets, nearest key first), and the
 * budgeted keys' window spends it read.
 */
async function chainRefusal(
  chain: ChainKey[],
  request: { model: string; type: string; costMicros: bigint },
  spendsOf: (keys: Budgeted[]) => Promise<Map<string, BudgetUsage>>,
): Promise<{ refusal: KeyPolicyError | null; budgets: { key: Budgeted; usage: BudgetUsage }[] }> {
  for (const key of chain) {
    const refusal = requestRefusal(key.policy, request);
    if (refusal) return { refusal, budgets: [] };
  }
  const budgeted = budgetedKeys(chain);
  const spends = await spendsOf(budgeted);
  const budgets = budgeted.map((key) => ({ key, usage: spends.get(key.id)! }));
  for (const { key, usage } of budgets) {
    const refusal = budgetRefusal(key.budget, usage, request.costMicros);
    if (refusal) return { refusal, budgets };
  }
  return { refusal: null, budgets };
}

/** A request to admit with a key: what its policies are checked against, and what its reservation records. */
export interface KeyedAdmission {
  apiKeyId: string;
  model: string;
  type: string;
  costMicros: bigint;
  createdAt: Date;
}

/** Writes a checked admission's spend once its task row exists; returns how many budget alerts it recorded. */
export type KeySpendReservation = (task: { id: string; accountId: string }) => Promise<number>;

/**
 * Within the admission's transaction, before it writes anything (a refusal commits nothing but the admission's
 * tombstone): locks the key and every key above it and refuses the request if any of them does not allow it (model,
 * type, cost, budget). Else returns what adds its cost to each key's reserved spend on its day and records the budget
 * alerts that brings about (key-budget-alerts.ts).
 */
export async function checkKeySpend(
  tx: Prisma.TransactionClient,
  admission: KeyedAdmission,
): Promise<KeySpendReservation> {
  const chain = await lockedChain(tx, admission.apiKeyId);
  const checked = await chainRefusal(chain, admission, (keys) => windowSpends(tx, keys, admission.createdAt));
  if (checked.refusal) throw checked.refusal;
  return async (task) => {
    await tx.$executeRaw`
      INSERT INTO key_spend (api_key_id, day, reserved)
      SELECT id, ${utcDay(admission.createdAt)}::date, ${admission.costMicros}
      FROM unnest(${chain.map((key) => key.id)}::text[]) AS id
      ON CONFLICT (api_key_id, day) DO UPDATE SET reserved = key_spend.reserved + EXCLUDED.reserved`;
    const reserved: ReservedBudget[] = checked.budgets.map(({ key, usage }) => ({
      key,
      budget: key.budget,
      usage: { ...usage, reserved: usage.reserved + admission.costMicros },
    }));
    return recordBudgetAlerts(tx, task, reserved);
  };
}

/** The refusal a budget answers a cost with, given its window's usage, or null while the window has room for it. */
function budgetRefusal(
  budget: NonNullable<KeyPolicy['budget']>,
  usage: BudgetUsage,
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
  await tx.$executeRaw`
    ${chainSql(task.apiKeyId)}
    UPDATE key_spend SET reserved = GREATEST(reserved - ${task.costReserved}, 0), charged = charged + ${chargedMicros}
    WHERE api_key_id IN (SELECT id FROM chain) AND day = ${utcDay(task.createdAt)}::date`;
}
