// GET /generations/{id} answers a task that has ended from memory after its first read (an ended task never
// changes), and only to its owner; a task still running, and a wallet's task, are read from the database each time.
// The row is changed behind the API's back here only to tell which source answered.
import { describe, expect, it } from 'vitest';
import { createAgentWithKey, createDeveloperWithKey } from '../helpers/accounts.ts';
import { useAppWithDatabase } from '../helpers/app.ts';
import { call } from '../helpers/http.ts';
import { createPaidTaskRow, createTaskRow } from '../helpers/task-rows.ts';

const stack = useAppWithDatabase();

const taskOf = (accountId: string, status: 'processing' | 'completed' | 'failed') =>
  createTaskRow(stack.database.prisma, accountId, status);
const changeBehindTheApi = (id: string, model: string) =>
  stack.database.prisma.task.update({ where: { id }, data: { model } });

describe('reads of ended tasks', () => {
  it.each(['completed', 'failed'] as const)(
    'a %s task is answered from memory after its first read',
    async (status) => {
      const owner = await createDeveloperWithKey(stack.database.prisma);
      const id = await taskOf(owner.developerId, status);
      const first = await call(stack, 'GET', `/generations/${id}`, { key: owner.apiKey.key });
      expect(first.body).toMatchObject({ id, status, model: 'local/lanczos' });
      await changeBehindTheApi(id, 'local/changed');
      const again = await call(stack, 'GET', `/generations/${id}`, { key: owner.apiKey.key });
      expect(again.body).toEqual(first.body);
    },
  );

  it('another account still gets 404 for a remembered task', async () => {
    const owner = await createDeveloperWithKey(stack.database.prisma);
    const other = await createAgentWithKey(stack.database.prisma);
    const id = await taskOf(owner.developerId, 'completed');
    expect((await call(stack, 'GET', `/generations/${id}`, { key: owner.apiKey.key })).status).toBe(200);
    const read = await call(stack, 'GET', `/generations/${id}`, { key: other.apiKey.key });
    expect(read).toMatchObject({ status: 404, body: { error: 'not_found' } });
  });

  it('a task still running is read from the database every time', async () => {
    const owner = await createDeveloperWithKey(stack.database.prisma);
    const id = await taskOf(owner.developerId, 'processing');
    expect((await call(stack, 'GET', `/generations/${id}`, { key: owner.apiKey.key })).body.status).toBe('processing');
    await stack.database.prisma.task.update({
      where: { id },
      data: {
        status: 'completed',
        costCharged: 1_000n,
        output: 'http://files.test/a.png',
        outputs: ['http://files.test/a.png'],
        completedAt: new Date(),
      },
    });
    const read = await call(stack, 'GET', `/generations/${id}`, { key: owner.apiKey.key });
    expect(read.body).toMatchObject({ id, status: 'completed', output: 'http://files.test/a.png' });
  });

  it('a task paid with x402 is read from the database every time: its payment moves on as it settles', async () => {
    const payer = `0x${'cc'.repeat(20)}`;
    const { id: taskId } = await createPaidTaskRow(stack.database.prisma, payer, {
      type: 'upscale',
      model: 'local/lanczos',
      image_url: 'https://inputs.test/a.png',
    });
    await stack.database.prisma.task.update({
      where: { id: taskId },
      data: { status: 'failed', error: 'The generation failed at the provider. You have not been charged.' },
    });
    const { accessToken } = await stack.database.prisma.x402Payment.findUniqueOrThrow({ where: { taskId } });
    const first = await call(stack, 'GET', `/generations/${taskId}`, { key: accessToken });
    expect(first.body).toMatchObject({ id: taskId, status: 'failed', payment: { status: 'authorized' } });
    await stack.database.prisma.x402Payment.update({ where: { taskId }, data: { status: 'abandoned' } });
    const again = await call(stack, 'GET', `/generations/${taskId}`, { key: accessToken });
    expect(again.body).toMatchObject({ id: taskId, status: 'failed', payment: { status: 'abandoned' } });
  });
});
