// The history's page is read with SQL of its own: each task must come out as GET /generations/{id}'s read (Prisma's)
// shows it, every column and a wallet's x402 payment included.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { listTaskHistory } from '../../src/generations/task-history.ts';
import { taskView } from '../../src/generations/task-view.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

let database: TestDatabase;
const config = loadConfig({}, []);

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

it("lists a wallet's tasks each with its payment, every column as Prisma reads it", async () => {
  const { prisma } = database;
  const accountId = 'wal_history';
  await prisma.account.create({ data: { id: accountId, kind: 'wallet', name: '0xabc', balance: { create: {} } } });
  const task = (id: string, createdAt: Date, more: object) =>
    prisma.task.create({
      data: {
        id,
        accountId,
        type: 'text-to-image',
        model: 'fal/flux-dev',
        request: { type: 'text-to-image', model: 'fal/flux-dev', prompt: 'a fox' },
        prompt: 'a fox',
        costReserved: 25_000n,
        createdAt,
        ...more,
      },
    });
  await task('gen_history_running', new Date('2026-11-02T10:00:00.123Z'), {
    status: 'processing',
    startedAt: new Date('2026-11-02T10:00:01Z'),
    progress: { stage: 'rendering', percent: 40 },
    aspectRatio: '16:9',
    numOutputs: 2,
  });
  await task('gen_history_done', new Date('2026-11-01T10:00:00Z'), {
    status: 'completed',
    costCharged: 20_000n,
    output: 'http://127.0.0.1/files/a.png',
    outputs: ['http://127.0.0.1/files/a.png'],
    completedAt: new Date('2026-11-01T10:00:09Z'),
    servedBy: 'fal',
  });
  await prisma.x402Payment.create({
    data: {
      taskId: 'gen_history_done',
      accountId,
      scheme: 'exact',
      network: 'eip155:84532',
      asset: '0xusdc',
      payer: '0xabc',
      payTo: '0xdef',
      nonce: '0x01',
      amount: 25_000n,
      validBefore: new Date('2026-11-01T11:00:00Z'),
      payload: {},
      requirement: {},
      accessToken: 'tok_history',
      status: 'settled',
      amountSettled: 20_000n,
      transaction: '0xfeed',
    },
  });
  const page = await listTaskHistory(
    { prisma, config },
    { scope: { accountId, accountKind: 'wallet' }, filter: {}, limit: 10 },
  );
  const read = await prisma.task.findMany({
    where: { accountId },
    orderBy: { createdAt: 'desc' },
    include: { payment: true },
  });
  expect(page.tasks).toEqual(read.map((row) => taskView(row, config.outputs)));
  expect(page.tasks.map((view) => view.payment?.transaction)).toEqual([undefined, '0xfeed']);
  expect(page.tasks[0]!.progress).toEqual({ stage: 'rendering', percent: 40 });
});
