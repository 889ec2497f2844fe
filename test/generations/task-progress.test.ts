// Progress reports on the task row (real PostgreSQL): throttled to one write per interval with the latest report
// winning, unchanged reports not rewritten, and only while the task is processing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logPercent } from '../../src/providers/replicate/predictions.ts';
import { recordProgress, throttledProgress } from '../../src/generations/task-progress.ts';
import { createFundedAccount } from '../helpers/accounts.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { createTaskRow } from '../helpers/task-rows.ts';

let database: TestDatabase;
let accountId: string;
beforeAll(async () => {
  database = await createTestDatabase();
  accountId = await createFundedAccount(database.prisma);
});
afterAll(() => database?.drop());

const taskRow = (status: 'processing' | 'completed') => createTaskRow(database.prisma, accountId, status);
const progressOf = async (id: string) =>
  (await database.prisma.task.findUniqueOrThrow({ where: { id } })).progress as object | null;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('throttledProgress', () => {
  it('writes the first report at once (no delay), then the latest one per interval', async () => {
    const id = await taskRow('processing');
    const reporter = throttledProgress(database.prisma, id, { intervalMs: 400, firstAfterMs: 0 });
    reporter.report({ stage: 'rendering', percent: 1 });
    await sleep(100);
    expect(await progressOf(id)).toEqual({ stage: 'rendering', percent: 1 });
    reporter.report({ stage: 'rendering', percent: 2 });
    reporter.report({ stage: 'rendering', percent: 3 });
    await sleep(100);
    expect(await progressOf(id)).toEqual({ stage: 'rendering', percent: 1 });
    await sleep(400);
    expect(await progressOf(id)).toEqual({ stage: 'rendering', percent: 3 });
    await reporter.close();
  });

  it('drops a report still pending at close', async () => {
    const id = await taskRow('processing');
    const reporter = throttledProgress(database.prisma, id, { intervalMs: 400, firstAfterMs: 0 });
    reporter.report({ stage: 'running' });
    await sleep(100);
    reporter.report({ stage: 'rendering', percent: 50 });
    await reporter.close();
    await sleep(500);
    expect(await progressOf(id)).toEqual({ stage: 'running' });
  });

  it('holds the first write back: a task that ends sooner writes nothing', async () => {
    const id = await taskRow('processing');
    const reporter = throttledProgress(database.prisma, id, { firstAfterMs: 5_000 });
    reporter.report({ stage: 'running' });
    await sleep(200);
    await reporter.close();
    expect(await progressOf(id)).toBeNull();
  });

  it('writes the latest report once the first write is due', async () => {
    const id = await taskRow('processing');
    const reporter = throttledProgress(database.prisma, id);
    reporter.report({ stage: 'downloading input' });
    reporter.report({ stage: 'running' });
    await expect.poll(() => progressOf(id), { timeout: 10_000 }).toEqual({ stage: 'running' });
    await reporter.close();
  });

  it('leaves a task that is not processing as it is', async () => {
    const id = await taskRow('completed');
    await recordProgress(database.prisma, id, { stage: 'running' });
    expect(await progressOf(id)).toBeNull();
  });
});

describe('logPercent (Replicate logs)', () => {
  it.each([
    ['', {}],
    ['loading model\n', {}],
    [' 10%|█         | 5/50 [00:01<00:09]\r 42%|████▏     | 21/50 [00:04<00:06]', { percent: 42 }],
    ['100%|██████████| 50/50', { percent: 100 }],
    ['using 50% guidance', {}],
  ])('%j → %j', (logs, expected) => {
    expect(logPercent(logs)).toEqual(expected);
  });
});
