// Admission writes the task row with SQL of its own (a key's check and reservation ride in the same statement) and
// answers the row it built: that row must be the one the database holds, column for column, as Prisma reads it; a
// refusal by the key's policy leaves nothing behind. A paid task's row (and its payment) is answered the same way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../src/accounts/api-keys.ts';
import { newId } from '../../src/domain/ids.ts';
import { admitTask } from '../../src/generations/tasks.ts';
import { credit } from '../../src/ledger/ledger.ts';
import { createDeveloperWithKey } from '../helpers/accounts.ts';
import { createPaidTaskRow } from '../helpers/task-rows.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

let database: TestDatabase;
let accountId = '';

beforeAll(async () => {
  database = await createTestDatabase();
  accountId = (await createDeveloperWithKey(database.prisma)).developerId;
  await credit(database.prisma, { accountId, amount: 10_000_000n, kind: 'adjustment', idempotencyKey: accountId });
});
afterAll(() => database?.drop());

const admitted = async (taskId: string) => {
  const { payment, ...row } = await database.prisma.task.findUniqueOrThrow({
    where: { id: taskId },
    include: { payment: true },
  });
  return { ...row, payment };
};

describe('admitPaidTask', () => {
  it('answers the row and its payment as Prisma reads them back', async () => {
    const request = { type: 'upscale', model: 'local/lanczos', image_url: 'https://example.com/a.png' } as const;
    const answered = await createPaidTaskRow(database.prisma, `0x${'cd'.repeat(20)}`, request);
    expect(answered).toEqual(await admitted(answered.id));
  });
});

describe('admitTask', () => {
  it('answers the row it wrote, every column as Prisma reads it back, with and without a key', async () => {
    const key = await issueApiKey(database.prisma, {
      accountId,
      kind: 'developer',
      name: 'budgeted',
      policy: { budget: { amountMicros: 1_000_000n, window: 'day' } },
    });
    const requests = [
      {
        type: 'text-to-image',
        model: 'fal/flux-schnell',
        prompt: 'a lighthouse',
        aspect_ratio: '16:9',
        num_outputs: 2,
      },
      { type: 'text-to-video', model: 'fal/veo-3-fast', prompt: 'waves', duration: 8, resolution: '720p' },
    ] as const;
    for (const [index, request] of requests.entries()) {
      const taskId = newId('gen');
      const answered = await admitTask(database.prisma, {
        taskId,
        accountId,
        request: { ...request, webhook_url: 'https://example.com/hook' },
        costMicros: 12_345n,
        idempotencyKey: `admitted-row-${index}`,
        ...(index === 1 && { apiKeyId: key.id, inputSeconds: 3 }),
      });
      const { budgetAlerts, ...row } = answered;
      expect(budgetAlerts).toBe(0);
      expect(row).toEqual(await admitted(taskId));
    }
  });

  it('a refusal by the key policy rolls back the reservation and the row', async () => {
    const key = await issueApiKey(database.prisma, {
      accountId,
      kind: 'developer',
      name: 'tiny',
      policy: { budget: { amountMicros: 10n, window: 'month' } },
    });
    const before = await database.prisma.balance.findUniqueOrThrow({ where: { accountId } });
    const taskId = newId('gen');
    await expect(
      admitTask(database.prisma, {
        taskId,
        accountId,
        request: { type: 'text-to-image', model: 'fal/flux-schnell', prompt: 'x' },
        costMicros: 11n,
        idempotencyKey: null,
        apiKeyId: key.id,
      }),
    ).rejects.toMatchObject({ code: 'budget_exceeded' });
    expect(await database.prisma.task.findUnique({ where: { id: taskId } })).toBeNull();
    expect(await database.prisma.balance.findUniqueOrThrow({ where: { accountId } })).toEqual(before);
    expect(await database.prisma.$queryRaw`SELECT * FROM key_spend WHERE api_key_id = ${key.id}`).toEqual([]);
  });
});
