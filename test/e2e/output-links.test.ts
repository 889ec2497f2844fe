// Output links and the Idempotency-Key that names a task, on the real stack (issue 55, points 3 and 12): a task's id
// is its outputs' link, so knowing an account id and an Idempotency-Key must not be enough to compute it, and a key
// with a policy must not reach another key's task through the key they share.
import { beforeAll, describe, expect, it } from 'vitest';
import { CreateGenerationBodySchema } from '../../src/api/resources/generations/generations.schemas.ts';
import { derivedId } from '../../src/domain/ids.ts';
import { admitTask } from '../../src/generations/tasks.ts';
import { checkedBalance } from '../helpers/balance.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { balanceGenerationInput } from '../helpers/generation-input.ts';
import { call, waitForEnd } from '../helpers/http.ts';
import { usePngInputServer } from '../helpers/png-input-server.ts';

const gateway = useGateway();
const inputs = usePngInputServer();
const developer = useFundedDeveloper(gateway);
let body: { type: string; model: string; image_url: string };
beforeAll(() => {
  body = { type: 'upscale', model: 'local/lanczos', image_url: `${inputs.url()}/input.png` };
});

const post = (key: string, idempotencyKey: string) =>
  call(gateway, 'POST', '/generations', { key, body, headers: { 'idempotency-key': idempotencyKey } });

/** The task id an Idempotency-Key gave before it was keyed with TASK_ID_SECRET: what anyone could compute. */
const unkeyedTaskId = (accountId: string, idempotencyKey: string) =>
  derivedId('gen', `${accountId}\n${idempotencyKey}`);

/** The output's link with its task id swapped for another. */
const linkWithTaskId = (output: string, taskId: string) => output.replace(/\/files\/[^/]+\//, `/files/${taskId}/`);

describe('an output link (issue 55, point 3)', () => {
  it('cannot be computed from the account id and the Idempotency-Key: only the link handed out serves', async () => {
    const created = await post(developer.key, 'order-42');
    expect(created.status).toBe(202);
    const task = await waitForEnd(gateway, { key: developer.key, pollUrl: created.body.poll_url });
    expect(task.status).toBe('completed');
    expect((await fetch(task.output)).status).toBe(200);

    // What an attacker holding the account id (receipts, upload URLs) and a guessable key computes.
    const guessed = unkeyedTaskId(developer.accountId, 'order-42');
    expect(task.id).not.toBe(guessed);
    const guessedLink = linkWithTaskId(task.output, guessed);
    expect(guessedLink).not.toBe(task.output);
    const refused = await fetch(guessedLink);
    expect(refused.status).toBe(404);
    expect(await refused.json()).toMatchObject({ error: 'not_found' });
  });

  it('made before the secret keeps its id: a retry of its Idempotency-Key runs it as that task, and its link serves', async () => {
    const before = await checkedBalance(gateway.database.prisma, developer.accountId);
    // An admission committed by the previous build (its id unkeyed) whose workflow never ran: the retry adopts it.
    const input = balanceGenerationInput(gateway, {
      accountId: developer.accountId,
      body: CreateGenerationBodySchema.parse(body),
      idempotencyKey: 'order-before-upgrade',
    });
    const oldId = unkeyedTaskId(developer.accountId, 'order-before-upgrade');
    const row = await admitTask(gateway.database.prisma, {
      ...input,
      taskId: oldId,
      costMicros: BigInt(input.costMicros),
    });

    const retried = await post(developer.key, 'order-before-upgrade');
    expect(retried).toMatchObject({ status: 202, body: { id: oldId } });
    const task = await waitForEnd(gateway, { key: developer.key, pollUrl: retried.body.poll_url, timeoutMs: 20_000 });
    expect(task).toMatchObject({ id: oldId, status: 'completed' });
    expect(task.output).toContain(`/files/${oldId}/`);
    expect((await fetch(task.output)).status).toBe(200);
    expect(await checkedBalance(gateway.database.prisma, developer.accountId)).toEqual({
      balance: before.balance - row.costReserved,
      reserved: before.reserved,
    });
  });
});

const createKey = async (name: string, policy?: object) => {
  const created = await call(gateway, 'POST', '/keys', { key: developer.key, body: { name, policy } });
  expect(created.status).toBe(201);
  return created.body as { id: string; api_key: string };
};

describe('an Idempotency-Key sent by two keys of one account (issue 55, point 12)', () => {
  it("is refused to a key with a policy when another key used it (409), and never hands it that key's task", async () => {
    const limited = await createKey('limited', { models: ['local/lanczos'] });
    const first = await post(developer.key, 'order-shared');
    expect(first.status).toBe(202);

    const reused = await post(limited.api_key, 'order-shared');
    expect(reused).toMatchObject({
      status: 409,
      body: {
        error: 'idempotency_key_reused',
        message: 'This Idempotency-Key was already used by another API key of this account.',
      },
    });
    expect(JSON.stringify(reused.body)).not.toContain(first.body.id);
    await waitForEnd(gateway, { key: developer.key, pollUrl: first.body.poll_url });
  });

  it("keeps each key's own retries idempotent, and lets a key without a policy (a rotated one) retry the account's", async () => {
    const limited = await createKey('own-retries', { models: ['local/lanczos'] });
    const rotated = await createKey('rotated');
    const before = await checkedBalance(gateway.database.prisma, developer.accountId);

    const own = await post(limited.api_key, 'order-limited');
    expect(own.status).toBe(202);
    expect(await post(limited.api_key, 'order-limited')).toMatchObject({ status: 202, body: { id: own.body.id } });
    const mine = await post(developer.key, 'order-main');
    expect(await post(rotated.api_key, 'order-main')).toMatchObject({ status: 202, body: { id: mine.body.id } });
    // A key without a policy sees every task of its account, so it may retry a policy key's too.
    expect(await post(developer.key, 'order-limited')).toMatchObject({ status: 202, body: { id: own.body.id } });

    for (const { key, created } of [
      { key: limited.api_key, created: own },
      { key: developer.key, created: mine },
    ])
      expect(await waitForEnd(gateway, { key, pollUrl: created.body.poll_url })).toMatchObject({ status: 'completed' });
    // One task each, each charged once.
    const tasks = await gateway.database.prisma.task.findMany({
      where: { accountId: developer.accountId, idempotencyKey: { in: ['order-limited', 'order-main'] } },
    });
    expect(tasks.map((task) => task.id).sort()).toEqual([own.body.id, mine.body.id].sort());
    const charged = tasks.reduce((sum, task) => sum + task.costCharged!, 0n);
    expect(await checkedBalance(gateway.database.prisma, developer.accountId)).toEqual({
      balance: before.balance - charged,
      reserved: before.reserved,
    });
  });
});
