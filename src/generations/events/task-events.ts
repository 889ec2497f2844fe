// Reading the task events the triggers on `tasks` write (prisma/migrations/…_task_events): a task's own, in id order
// (its writers hold its row in turn, so its ids commit in order), and an account's, in commit-safe order: by writing
// transaction, and only transactions older than every one of this database still in flight (…_task_events_horizon),
// so a later commit can never slip in before what a stream has already sent (ids are taken before commit). Budget
// alerts ride on the admitting task's rows (src/accounts/key-budget-alerts.ts): only the account's stream sends them.
import type { PrismaClient } from '../../db/prisma.ts';
import { Prisma } from '../../generated/prisma/client.ts';
import { budgetAlertEvent } from '../../accounts/key-budget-alerts.ts';
import { keysBelowSql } from '../../accounts/keys-below.ts';
/** The task's own events, then the account's that ride on one of its tasks (only the account's stream sends those). */
export const taskEventTypes = ['queued', 'processing', 'progress', 'completed', 'failed', budgetAlertEvent] as const;
export type TaskEventType = (typeof taskEventTypes)[number];

export interface TaskEvent {
  id: bigint;
  taskId: string;
  type: TaskEventType;
  /** As the trigger wrote it; an ended task's event is sent with the task body instead. */
  data: Record<string, unknown>;
  txId: bigint;
}

/** Where an account's stream stands: after the event (txId, id) in commit-safe order; `minId` for unknown ids. */
export interface AccountCursor {
  txId: bigint;
  id: bigint;
  minId: bigint;
  /** A new stream's start (a `pg_snapshot`): what had committed then is history, however young its transaction. */
  history?: string;
}

/** Events read per query; a stream reads again at once while pages come back full. */
export const eventPageSize = 500;

const maxBigint = 9_223_372_036_854_775_807n;

/** A task's events after `afterId`, in order (its own: not the account's budget alerts it raised). */
export async function taskEventsAfter(prisma: PrismaClient, taskId: string, afterId: bigint): Promise<TaskEvent[]> {
  const rows = await prisma.taskEvent.findMany({
    where: { taskId, id: { gt: afterId }, type: { not: budgetAlertEvent } },
    orderBy: { id: 'asc' },
    take: eventPageSize,
  });
  return rows.map((row) => ({ ...row, type: row.type as TaskEventType, data: row.data as Record<string, unknown> }));
}

interface AccountEventRow {
  id: bigint;
  task_id: string;
  type: string;
  data: Record<string, unknown>;
  tx_id: bigint;
  safe: boolean;
}

/**
 * An account's events after the cursor that are safe to send; `pending`: some committed events had to wait for an
 * older transaction still in flight (read again shortly, as its commit may notify nothing). The horizon is a sub-select,
 * read once per page rather than per row: it scans pg_stat_activity.
 */
export async function accountEventsAfter(
  prisma: PrismaClient,
  accountId: string,
  cursor: AccountCursor,
  onlyKey?: string,
): Promise<{ events: TaskEvent[]; pending: boolean }> {
  const rows = await prisma.$queryRaw<AccountEventRow[]>`
    ${ownKeys(accountId, onlyKey)}
    SELECT id, task_id, type, data, tx_id, tx_id < (SELECT task_events_horizon(pg_current_snapshot())) AS safe
    FROM task_events
    WHERE account_id = ${accountId} AND (tx_id, id) > (${cursor.txId}, ${cursor.id}) AND id > ${cursor.minId}
      ${notHistory(cursor)} ${ofKey(onlyKey)}
    ORDER BY tx_id, id
    LIMIT ${eventPageSize}`;
  const firstUnsafe = rows.findIndex((row) => !row.safe);
  const safe = firstUnsafe === -1 ? rows : rows.slice(0, firstUnsafe);
  const events = safe.map((row) => ({
    id: row.id,
    taskId: row.task_id,
    type: row.type as TaskEventType,
    data: row.data,
    txId: row.tx_id,
  }));
  return { events, pending: firstUnsafe !== -1 };
}

/** With `onlyKey`: the key and every key below it (the keys it made, and theirs), as `own_keys`. */
function ownKeys(accountId: string, onlyKey: string | undefined): Prisma.Sql {
  if (onlyKey === undefined) return Prisma.empty;
  return Prisma.sql`WITH own_keys AS (${keysBelowSql(accountId, onlyKey)})`;
}

/** With `onlyKey` (a key with a policy): the events of its own tasks, and the budget alerts of its keys (ownKeys). */
function ofKey(onlyKey: string | undefined): Prisma.Sql {
  if (onlyKey === undefined) return Prisma.empty;
  return Prisma.sql`AND CASE WHEN type = ${budgetAlertEvent}
      THEN data->>'key_id' IN (SELECT id FROM own_keys)
      ELSE EXISTS (SELECT FROM tasks WHERE tasks.id = task_events.task_id AND tasks.api_key_id = ${onlyKey}) END`;
}

function notHistory(cursor: AccountCursor): Prisma.Sql {
  if (cursor.history === undefined) return Prisma.empty;
  return Prisma.sql`AND NOT pg_visible_in_snapshot(tx_id::text::xid8, ${cursor.history}::pg_snapshot)`;
}

/**
 * The cursor of an account stream: after the given event (`Last-Event-ID`) when it is the account's, after every id up
 * to it when it is not known (swept); without one, what commits from now on.
 */
export async function accountCursor(
  prisma: PrismaClient,
  accountId: string,
  lastEventId: bigint | undefined,
): Promise<AccountCursor> {
  if (lastEventId !== undefined) {
    const event = await prisma.taskEvent.findFirst({
      where: { id: lastEventId, accountId },
      select: { txId: true },
    });
    if (event) return { txId: event.txId, id: lastEventId, minId: 0n };
    return { txId: -1n, id: maxBigint, minId: lastEventId };
  }
  const [now] = await prisma.$queryRaw<{ snapshot: string; xmin: bigint }[]>`
    SELECT now::text AS snapshot, pg_snapshot_xmin(now)::text::bigint AS xmin FROM pg_current_snapshot() AS now`;
  // Every transaction below xmin has ended; of those above, what the snapshot sees is history too.
  return { txId: now!.xmin - 1n, id: maxBigint, minId: 0n, history: now!.snapshot };
}
