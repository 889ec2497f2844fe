// What each key's tasks reserve and are charged, by the UTC day each task was admitted (key_spend), written in the
// transactions that move the account's money: a budget is checked under the account's balance row lock, so
// concurrent admissions can never overspend it. A task counts against its key and every key above it (the keys that made it).
import type { PrismaClient } from '../db/prisma.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { formatUsd, usdNumber } from '../domain/money.ts';
import {
  type BudgetWindow,
  budgetWindows,
  KeyPolicyError,
  type KeyPolicy,
  policyOf,
  requestRefusal,
} from './key-policy.ts';
import type { ReservedBudget } from './key-budget-alerts.ts';

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

/** A key's spend in the current window of each kind of budget. */
type WindowSpends = Record<BudgetWindow, WindowSpend>;

/** A budget's current window: what is spent, held and left of it, and its bounds. */
export type BudgetUsage = WindowSpend & { remaining: bigint; start: Date; resetsAt: Date | null };

/**
 * The columns that sum a key's key_spend rows over the current window of each kind (`day_charged`,
 * `day_reserved`, …, `total_reserved`): one index range scan serves every policy the key could have.
 */
function windowSumColumns(now: Date) {
  return Prisma.join(
    budgetWindows.flatMap((window) => {
      const since = Prisma.sql`day >= ${budgetWindowAt(window, now).start}::date`;
      return ['charged', 'reserved'].map(
        (column) => Prisma.sql`coalesce(sum(${Prisma.raw(column)}) FILTER (WHERE ${since}), 0)::bigint
          AS ${Prisma.raw(`${window}_${column}`)}`,
      );
    }),
  );
}

type WindowSumRow = Record<`${BudgetWindow}_${keyof WindowSpend}`, bigint>;
const windowSpendsOf = (row: WindowSumRow): WindowSpends =>
  Object.fromEntries(
    budgetWindows.map((window) => [window, { charged: row[`${window}_charged`], reserved: row[`${window}_reserved`] }]),
  ) as WindowSpends;

function usageOf(budget: NonNullable<KeyPolicy['budget']>, spends: WindowSpends, now: Date): BudgetUsage {
  const { start, resetsAt } = budgetWindowAt(budget.window, now);
  const spend = spends[budget.window];
  const left = budget.amountMicros - spend.charged - spend.reserved;
  return { ...spend, remaining: left > 0n ? left : 0n, start, resetsAt };
}

/** A key's current budget window: its budget's (`total` without one), what is spent and held, what is left (null: no budget). */
export type KeyWindow = WindowSpend & {
  window: BudgetWindow;
  remaining: bigint | null;
  start: Date;
  resetsAt: Date | null;
};

const noSpends = Object.fromEntries(
  budgetWindows.map((window) => [window, { charged: 0n, reserved: 0n }]),
) as WindowSpends;

/** Each key's budget window (GET /keys, /keys/{id}, /keys/current), in one query for them all. */
export async function keyWindows(
  db: Db,
  keys: { id: string; budget: KeyPolicy['budget'] | undefined }[],
  now = new Date(),
): Promise<Map<string, KeyWindow>> {
  const ids = keys.map((key) => key.id);
  const rows = await db.$queryRaw<(WindowSumRow & { api_key_id: string })[]>`
    SELECT api_key_id, ${windowSumColumns(now)} FROM key_spend
    WHERE api_key_id = ANY(${ids}::text[]) GROUP BY api_key_id`;
  const spendsByKey = new Map(rows.map((row) => [row.api_key_id, windowSpendsOf(row)]));
  return new Map(
    keys.map(({ id, budget }) => {
      const usage = usageOf(budget ?? { amountMicros: 0n, window: 'total' }, spendsByKey.get(id) ?? noSpends, now);
      return [id, { ...usage, window: budget?.window ?? 'total', remaining: budget ? usage.remaining : null }];
    }),
  );
}

// The key and the keys above it (ancestor_ids, written when the key is made), nearest first: depth 1 is the key.
const chainSql = (keyId: string) => Prisma.sql`
  WITH chain AS (
    SELECT c.id, c.depth FROM api_keys self,
      unnest(ARRAY[self.id] || self.ancestor_ids) WITH ORDINALITY AS c (id, depth)
    WHERE self.id = ${keyId}
  )`;

interface ChainKey {
  id: string;
  name: string;
  policy: KeyPolicy | null;
  /** Before this request's cost. */
  spends: WindowSpends;
}

/** A cost to add to the reserved spend of every key of the chain, on the day its task is admitted. */
interface ChainReservation {
  day: Date;
  costMicros: bigint;
}

/**
 * The key and every key above it, nearest first, each with its policy and its spend in every current window, in one
 * statement; given a reservation, the same statement adds it to each key's spend (the sums read are from before).
 */
async function chainWithSpends(
  db: Db,
  keyId: string,
  now: Date,
  reservation?: ChainReservation & { alongside: Prisma.Sql },
): Promise<ChainKey[]> {
  const reserve = reservation
    ? Prisma.sql`, reserved AS (
        INSERT INTO key_spend (api_key_id, day, reserved)
        SELECT id, ${reservation.day}::date, ${reservation.costMicros} FROM keys ORDER BY depth
        ON CONFLICT (api_key_id, day) DO UPDATE SET reserved = key_spend.reserved + EXCLUDED.reserved),
      alongside AS (${reservation.alongside})`
    : Prisma.empty;
  const rows = await db.$queryRaw<({ id: string; name: string; policy: unknown } & WindowSumRow)[]>`
    ${chainSql(keyId)},
    keys AS (SELECT k.id, k.name, k.policy, c.depth FROM api_keys k JOIN chain c ON c.id = k.id)
    ${reserve}
    SELECT k.id, k.name, k.policy, w.* FROM keys k
      CROSS JOIN LATERAL (SELECT ${windowSumColumns(now)} FROM key_spend s WHERE s.api_key_id = k.id) w
    ORDER BY k.depth`;
  return rows.map((row) => ({ id: row.id, name: row.name, policy: policyOf(row.policy), spends: windowSpendsOf(row) }));
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
  return chainRefusal(await chainWithSpends(db, keyId, now), request, now).refusal;
}

/**
 * The first refusal of a chain's policies (allowlists and caps first, then budgets, nearest key first), and the
 * budgeted keys' window usage.
 */
function chainRefusal(
  chain: ChainKey[],
  request: { model: string; type: string; costMicros: bigint },
  now: Date,
): { refusal: KeyPolicyError | null; budgets: { key: Budgeted; usage: BudgetUsage }[] } {
  for (const key of chain) {
    const refusal = requestRefusal(key.policy, request);
    if (refusal) return { refusal, budgets: [] };
  }
  const budgets = budgetedKeys(chain).map((key) => ({ key, usage: usageOf(key.budget, key.spends, now) }));
  for (const { key, usage } of budgets) {
    const refusal = budgetRefusal(key.budget, usage, request.costMicros, key.id === chain[0]?.id ? 'own' : 'above');
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

/**
 * Within the admission's transaction, after the account's reservation: adds the cost to the reserved spend of the
 * key and every key above it, and refuses the request if any of them does not allow it (model, type, cost, budget);
 * the refusal rolls the transaction back. `alongside` (the task's insert) is written by the same statement. The account's balance row, locked by the reservation, serialises every
 * admission and settlement of the account: this later statement sees all that committed before, so concurrent
 * requests cannot overspend a budget. Returns the budgeted keys' windows with the cost in them (for budget alerts).
 */
export async function reserveKeySpend(
  tx: Prisma.TransactionClient,
  admission: KeyedAdmission,
  alongside: Prisma.Sql,
): Promise<ReservedBudget[]> {
  const { createdAt: now, costMicros } = admission;
  const chain = await chainWithSpends(tx, admission.apiKeyId, now, { day: utcDay(now), costMicros, alongside });
  const checked = chainRefusal(chain, admission, now);
  if (checked.refusal) throw checked.refusal;
  return checked.budgets.map(({ key, usage }) => ({
    key,
    budget: key.budget,
    usage: { ...usage, reserved: usage.reserved + costMicros },
  }));
}

/**
 * The refusal a budget answers a cost with, given its window's usage, or null while the window has room for it. The
 * budget of a key above the caller's is its maker's business: the refusal says it has no room, without its figures.
 */
function budgetRefusal(
  budget: NonNullable<KeyPolicy['budget']>,
  usage: BudgetUsage,
  costMicros: bigint,
  whose: 'own' | 'above',
): KeyPolicyError | null {
  if (usage.charged + usage.reserved + costMicros <= budget.amountMicros) return null;
  if (whose === 'above')
    return new KeyPolicyError(
      'budget_exceeded',
      `This request costs $${formatUsd(costMicros)}; a key above this API key (the key that made it, or one above ` +
        "that) has no room left for it in its budget's current window.",
    );
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
