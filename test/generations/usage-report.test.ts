// The usage report over PostgreSQL: whole days read from usage_daily (or its keyless totals) and the edge hours from usage_hourly add up to
// exactly the tasks that ended within the period, however it is cut; a policy key's view is its own tasks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordTaskUsage } from '../../src/generations/usage-aggregates.ts';
import { usageReport } from '../../src/generations/usage-report.ts';
import { createDeveloperWithKey } from '../helpers/accounts.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

let database: TestDatabase;
let accountId = '';
let keyId = '';
// A task every 7 hours over 9 days (from 2026-11-01T03:00Z), alternating models, every third by the key.
const ended = Array.from({ length: 31 }, (_, index) => ({
  at: new Date(Date.UTC(2026, 10, 1, 3 + index * 7, 17)),
  model: index % 2 ? 'local/espeak' : 'openai/sora-2',
  byKey: index % 3 === 0,
  costMicros: BigInt(1_000 + index),
}));

beforeAll(async () => {
  database = await createTestDatabase();
  const developer = await createDeveloperWithKey(database.prisma);
  accountId = developer.developerId;
  keyId = developer.apiKey.id;
  for (const task of ended)
    await database.prisma.$transaction((tx) =>
      recordTaskUsage(
        tx,
        {
          accountId,
          apiKeyId: task.byKey ? keyId : null,
          model: task.model,
          type: 'text-to-audio',
          outcome: 'completed',
          costMicros: task.costMicros,
          refundedMicros: 1n,
          units: { characters: 10 },
        },
        task.at,
      ),
    );
});
afterAll(() => database.drop());

const within = (from: string, to: string) =>
  ended.filter((task) => task.at >= new Date(from) && task.at < new Date(to));

describe('usageReport', () => {
  it.each([
    ['whole days only', '2026-11-02T00:00:00Z', '2026-11-05T00:00:00Z'],
    ['edges on both sides', '2026-11-01T10:00:00Z', '2026-11-07T05:00:00Z'],
    ['within one day', '2026-11-03T04:00:00Z', '2026-11-03T21:00:00Z'],
    ['across one midnight, no whole day', '2026-11-04T20:00:00Z', '2026-11-05T08:00:00Z'],
    ['the whole span', '2026-10-01T00:00:00Z', '2026-12-01T00:00:00Z'],
  ])('%s: exactly the tasks that ended in the period', async (_name, from, to) => {
    const report = await usageReport(database.prisma, {
      accountId,
      from: new Date(from),
      to: new Date(to),
      groupBy: ['model'],
    });
    const expected = within(from, to);
    expect(report.totals.completed).toBe(BigInt(expected.length));
    expect(report.totals.costMicros).toBe(expected.reduce((sum, task) => sum + task.costMicros, 0n));
    expect(report.totals.units).toEqual(expected.length ? { characters: 10 * expected.length } : {});
    const sora = expected.filter((task) => task.model === 'openai/sora-2').length;
    expect(report.rows.find((row) => row.model === 'openai/sora-2')?.completed ?? 0n).toBe(BigInt(sora));
  });

  it('answers the same by model from the keyless daily table as from the rows by key', async () => {
    const period = { accountId, from: new Date('2026-11-01T10:00:00Z'), to: new Date('2026-11-08T05:00:00Z') };
    const byModel = await usageReport(database.prisma, { ...period, groupBy: ['day', 'model'] });
    const byKey = await usageReport(database.prisma, { ...period, groupBy: ['day', 'model', 'key'] });
    const summed = new Map<string, bigint>();
    for (const row of byKey.rows) {
      const cell = `${row.day} ${row.model}`;
      summed.set(cell, (summed.get(cell) ?? 0n) + row.costMicros);
    }
    expect(byModel.rows.map((row) => [`${row.day} ${row.model}`, row.costMicros])).toEqual([...summed]);
    expect(byModel.totals).toEqual(byKey.totals);
  });

  it('groups by day as the UTC day each task ended, and a key sees only its own tasks', async () => {
    const [from, to] = ['2026-11-01T10:00:00Z', '2026-11-04T13:00:00Z'];
    const byDay = await usageReport(database.prisma, {
      accountId,
      from: new Date(from),
      to: new Date(to),
      groupBy: ['day'],
    });
    const days = new Map<string, number>();
    for (const task of within(from, to)) {
      const day = task.at.toISOString().slice(0, 10);
      days.set(day, (days.get(day) ?? 0) + 1);
    }
    expect(byDay.rows.map((row) => [row.day, Number(row.completed)])).toEqual([...days]);
    // A period of hours alone (no whole day) groups by day as well.
    const hoursOnly = await usageReport(database.prisma, {
      accountId,
      from: new Date('2026-11-03T04:00:00Z'),
      to: new Date('2026-11-03T21:00:00Z'),
      groupBy: ['day'],
    });
    expect(hoursOnly.rows.map((row) => row.day)).toEqual(['2026-11-03']);
    const own = await usageReport(database.prisma, {
      accountId,
      onlyKeyId: keyId,
      from: new Date(from),
      to: new Date(to),
      groupBy: ['key'],
    });
    expect(own.rows).toHaveLength(1);
    expect(own.rows[0]).toMatchObject({
      keyId,
      completed: BigInt(within(from, to).filter((task) => task.byKey).length),
    });
  });
});
