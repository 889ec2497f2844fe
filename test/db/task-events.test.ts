// The task events the triggers on `tasks` write (issue 29), on real PostgreSQL: one per status change and per new
// progress report, none for other updates; gone with their task; an account's events read in commit-safe order, so
// an event committed while an older transaction of the database is still in flight waits for it (a stream never skips
// one), one of another database holds nothing back, and a new stream starts exactly after what had committed; and the
// LISTEN feed wakes a subscriber of the account at commit.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { PrismaClient } from '../../src/db/prisma.ts';
import { createTaskEventFeed } from '../../src/generations/events/event-feed.ts';
import {
  type AccountCursor,
  accountCursor,
  accountEventsAfter,
  taskEventsAfter,
} from '../../src/generations/events/task-events.ts';
import { createFundedAccount } from '../helpers/accounts.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { createTaskRow } from '../helpers/task-rows.ts';

let database: TestDatabase;
let prisma: PrismaClient;
let accountId: string;
beforeAll(async () => {
  database = await createTestDatabase();
  prisma = database.prisma;
  accountId = await createFundedAccount(prisma);
});
afterAll(() => database?.drop());

const eventsOf = async (taskId: string) =>
  (await taskEventsAfter(prisma, taskId, 0n)).map(({ type, data }) => ({ type, data }));

describe('the triggers on tasks', () => {
  it('write queued, processing, each new progress, then the end; nothing for other updates', async () => {
    const id = await createTaskRow(prisma, accountId, 'queued');
    await prisma.task.update({ where: { id }, data: { status: 'processing', startedAt: new Date() } });
    await prisma.task.update({ where: { id }, data: { progress: { stage: 'rendering', percent: 10 } } });
    await prisma.task.update({ where: { id }, data: { progress: { stage: 'rendering', percent: 10 } } });
    await prisma.task.update({ where: { id }, data: { progress: { stage: 'rendering', percent: 60 } } });
    await prisma.task.update({ where: { id }, data: { servedBy: 'local' } });
    await prisma.task.update({ where: { id }, data: { status: 'completed', completedAt: new Date() } });
    const events = await eventsOf(id);
    expect(events.map((event) => event.type)).toEqual(['queued', 'processing', 'progress', 'progress', 'completed']);
    const row = await prisma.task.findUniqueOrThrow({ where: { id } });
    expect(events[0]!.data).toEqual({ id, status: 'queued', created_at: row.createdAt.toISOString() });
    expect(events[1]!.data).toMatchObject({ status: 'processing', started_at: row.startedAt!.toISOString() });
    expect(events[3]!.data).toEqual({ id, status: 'processing', progress: { stage: 'rendering', percent: 60 } });
    const ids = (await taskEventsAfter(prisma, id, 0n)).map((event) => event.id);
    expect(ids).toEqual([...ids].sort((a, b) => (a < b ? -1 : 1)));
  });

  it('go with their task', async () => {
    const id = await createTaskRow(prisma, accountId, 'failed');
    expect(await prisma.taskEvent.count({ where: { taskId: id } })).toBe(1);
    await prisma.task.delete({ where: { id } });
    expect(await prisma.taskEvent.count({ where: { taskId: id } })).toBe(0);
  });
});

// A transaction of another test file that ends just as a read looks counts as this database's for that read: polled.
const pollBound = { timeout: 30_000 };
const taskIdsAfter = async (account: string, cursor: AccountCursor) =>
  (await accountEventsAfter(prisma, account, cursor)).events.map((event) => event.taskId);

describe("an account's events", () => {
  it('wait for an older transaction still in flight: a later commit never overtakes an earlier id', async () => {
    const other = await createFundedAccount(prisma);
    const [first, second] = [
      await createTaskRow(prisma, other, 'queued'),
      await createTaskRow(prisma, other, 'queued'),
    ];
    const cursor = await accountCursor(prisma, other, undefined);
    const [slow, quick] = [
      new pg.Client({ connectionString: database.url }),
      new pg.Client({ connectionString: database.url }),
    ];
    await Promise.all([slow.connect(), quick.connect()]);
    try {
      // The slow transaction takes the lower event id and commits last.
      await slow.query('BEGIN');
      await slow.query(`UPDATE tasks SET status = 'processing' WHERE id = $1`, [first]);
      await quick.query(`UPDATE tasks SET status = 'processing' WHERE id = $1`, [second]);
      const held = await accountEventsAfter(prisma, other, cursor);
      expect(held.events.filter((event) => event.taskId === second)).toEqual([]);
      expect(held.pending).toBe(true);
      await slow.query('COMMIT');
      await expect.poll(() => taskIdsAfter(other, cursor), pollBound).toEqual([first, second]);
    } finally {
      await Promise.all([slow.end(), quick.end()]);
    }
  });

  it('start a new stream after what had committed, even a younger transaction while an older one is in flight', async () => {
    const other = await createFundedAccount(prisma);
    const older = new pg.Client({ connectionString: database.url });
    await older.connect();
    try {
      await older.query('BEGIN');
      await older.query('SELECT pg_current_xact_id()');
      const before = await createTaskRow(prisma, other, 'queued');
      const cursor = await accountCursor(prisma, other, undefined);
      const after = await createTaskRow(prisma, other, 'queued');
      expect((await accountEventsAfter(prisma, other, cursor)).pending).toBe(true);
      await older.query('COMMIT');
      await expect.poll(() => taskIdsAfter(other, cursor), pollBound).toEqual([after]);
      expect(before).not.toBe(after);
    } finally {
      await older.end();
    }
  });

  it('are not held back by a transaction of another database on the same server', async () => {
    const other = await createFundedAccount(prisma);
    const elsewhere = new pg.Client({ connectionString: inject('databaseAdminUrl') });
    await elsewhere.connect();
    try {
      await elsewhere.query('BEGIN');
      await elsewhere.query('SELECT pg_current_xact_id()');
      const cursor = await accountCursor(prisma, other, undefined);
      const id = await createTaskRow(prisma, other, 'queued');
      await expect.poll(() => taskIdsAfter(other, cursor), pollBound).toEqual([id]);
    } finally {
      await elsewhere.query('COMMIT');
      await elsewhere.end();
    }
  });

  it('resume after a Last-Event-ID; one of another account or unknown resumes after that id', async () => {
    const other = await createFundedAccount(prisma);
    const tasks = [await createTaskRow(prisma, other, 'queued'), await createTaskRow(prisma, other, 'queued')];
    const all = (await accountEventsAfter(prisma, other, { txId: -1n, id: 0n, minId: 0n })).events;
    expect(all.map((event) => event.taskId)).toEqual(tasks);
    const after = await accountCursor(prisma, other, all[0]!.id);
    expect((await accountEventsAfter(prisma, other, after)).events.map((event) => event.id)).toEqual([all[1]!.id]);
    const foreign = await accountCursor(prisma, accountId, all[0]!.id);
    expect(foreign).toMatchObject({ minId: all[0]!.id });
  });

  it('read the horizon once per page, not once per event (it scans pg_stat_activity)', async () => {
    const other = await createFundedAccount(prisma);
    for (let index = 0; index < 5; index++) await createTaskRow(prisma, other, 'queued');
    const { events, calls } = await prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SET LOCAL track_functions = 'all'`;
      const page = await accountEventsAfter(tx as PrismaClient, other, { txId: -1n, id: 0n, minId: 0n });
      const [counted] = await tx.$queryRaw<{ calls: bigint }[]>`
        SELECT pg_stat_get_xact_function_calls('task_events_horizon'::regproc) AS calls`;
      return { events: page.events, calls: counted!.calls };
    });
    expect(events).toHaveLength(5);
    expect(calls).toBe(1n);
  });
});

describe('the LISTEN feed', () => {
  it("wakes the account's subscribers at commit, with the task; not another account's", async () => {
    const feed = createTaskEventFeed(database.url);
    const woken: (string | undefined)[] = [];
    const others: (string | undefined)[] = [];
    const unsubscribe = await feed.subscribe(accountId, (taskId) => woken.push(taskId));
    const unsubscribeOther = await feed.subscribe('acct_nobody', (taskId) => others.push(taskId));
    const id = await createTaskRow(prisma, accountId, 'queued');
    await expect.poll(() => woken).toContain(id);
    expect(others).toEqual([]);
    unsubscribe();
    unsubscribeOther();
  });
});
