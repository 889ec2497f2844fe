// Issue 55 point 4: the account's webhook and its secret are the account's, not a sub-key's. A key with a policy
// (even with the `keys` scope) may not change the webhook or read the secret (403 forbidden), and sees and sends again
// only the delivery-log messages about the tasks it created; a key without a policy still manages all of it.
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.ts';
import { createAgentWithKey, createDeveloperWithKey } from '../helpers/accounts.ts';
import { useAppWithDatabase } from '../helpers/app.ts';
import { call } from '../helpers/http.ts';
import { createTaskRow } from '../helpers/task-rows.ts';

const stack = useAppWithDatabase();

/** A key with every scope and a policy (a budget), made by `maker` through POST /keys. */
async function policyKey(maker: string): Promise<{ key: string; id: string }> {
  const made = await call(stack, 'POST', '/keys', {
    key: maker,
    body: {
      name: 'sub-agent',
      scopes: ['generate', 'read', 'keys'],
      policy: { budget: { amount: 5, window: 'month' } },
    },
  });
  expect(made.status).toBe(201);
  return { key: made.body.api_key, id: made.body.id };
}

const refusedAsPolicyKey = {
  status: 403,
  headers: expect.anything(),
  body: { error: 'forbidden', message: expect.stringMatching(/key with a policy/) },
};

describe("a key with a policy and the account's webhook", () => {
  let developer: { key: string; accountId: string; keyId: string };
  let sub: { key: string; id: string };
  beforeAll(async () => {
    const made = await createDeveloperWithKey(stack.database.prisma);
    developer = { key: made.apiKey.key, accountId: made.developerId, keyId: made.apiKey.id };
    sub = await policyKey(developer.key);
  });

  it('may neither set nor remove the webhook (PUT /webhooks)', async () => {
    const url = 'https://hooks.example/account';
    expect((await call(stack, 'PUT', '/webhooks', { key: developer.key, body: { webhook_url: url } })).status).toBe(
      200,
    );
    for (const body of [{ webhook_url: 'https://attacker.example/hook' }, { webhook_url: null }])
      expect(await call(stack, 'PUT', '/webhooks', { key: sub.key, body })).toEqual(refusedAsPolicyKey);
    expect((await call(stack, 'GET', '/webhooks', { key: developer.key })).body.webhook_url).toBe(url);
  });

  it('may not read the signing secret (GET /account/webhook-secret)', async () => {
    expect(await call(stack, 'GET', '/account/webhook-secret', { key: sub.key })).toEqual(refusedAsPolicyKey);
    const own = await call(stack, 'GET', '/account/webhook-secret', { key: developer.key });
    expect(own.body.webhook_secret).toMatch(/^whsec_/);
  });

  it("of an agent, may not replace the agent's webhook and its secret (PATCH /agents/webhook)", async () => {
    const agent = await createAgentWithKey(stack.database.prisma);
    const agentSub = await policyKey(agent.apiKey.key);
    const body = { webhook_url: 'https://attacker.example/hook' };
    expect(await call(stack, 'PATCH', '/agents/webhook', { key: agentSub.key, body })).toEqual(refusedAsPolicyKey);
    const row = await stack.database.prisma.account.findUniqueOrThrow({ where: { id: agent.agentId } });
    expect(row.webhookUrl).toBeNull();
    const set = await call(stack, 'PATCH', '/agents/webhook', { key: agent.apiKey.key, body });
    expect(set.status).toBe(200);
  });

  describe('the delivery log', () => {
    const messages = { own: [] as string[], others: [] as string[] };
    beforeAll(async () => {
      const { prisma } = stack.database;
      // Messages of the account: three about tasks the sub-key created, one about the maker's task, one deposit's.
      const at = Date.now() - 60_000;
      const message = async (taskId: string | null, event: string, index: number) => {
        const id = newId('msg');
        await prisma.webhookMessage.create({
          data: { id, accountId: developer.accountId, taskId, event, body: '{}', createdAt: new Date(at + index) },
        });
        return id;
      };
      for (const index of [0, 1, 2]) {
        const task = await createTaskRow(prisma, developer.accountId, 'completed', { apiKeyId: sub.id });
        messages.own.push(await message(task, 'generation.completed', index));
      }
      const makers = await createTaskRow(prisma, developer.accountId, 'completed', { apiKeyId: developer.keyId });
      messages.others.push(await message(makers, 'generation.completed', 3));
      messages.others.push(await message(null, 'deposit.credited', 4));
    });
    const ids = (page: { body: { messages: { id: string }[] } }) => page.body.messages.map((each) => each.id);

    it('shows a key with a policy only the messages about its own tasks, page by page', async () => {
      const first = await call(stack, 'GET', '/webhooks/deliveries?limit=2', { key: sub.key });
      expect(first.status).toBe(200);
      expect(ids(first)).toEqual([messages.own[2], messages.own[1]]);
      const rest = await call(stack, 'GET', `/webhooks/deliveries?limit=2&cursor=${first.body.next_cursor}`, {
        key: sub.key,
      });
      expect(rest.body).toMatchObject({ messages: [{ id: messages.own[0] }], next_cursor: null });
      const othersTask = await stack.database.prisma.webhookMessage.findUniqueOrThrow({
        where: { id: messages.others[0] },
      });
      const filtered = await call(stack, 'GET', `/webhooks/deliveries?task_id=${othersTask.taskId}`, { key: sub.key });
      expect(filtered.body).toEqual({ messages: [], next_cursor: null });
      // The key without a policy sees every message of the account.
      const all = await call(stack, 'GET', '/webhooks/deliveries?limit=100', { key: developer.key });
      expect(ids(all)).toEqual([...messages.others].reverse().concat([...messages.own].reverse()));
    });

    it('lets a key with a policy send again only the messages about its own tasks', async () => {
      for (const id of messages.others) {
        const refused = await call(stack, 'POST', `/webhooks/deliveries/${id}/redeliver`, { key: sub.key });
        expect(refused.body).toEqual({ error: 'not_found', message: `There is no webhook message ${id}.` });
      }
      // Its own message is found; the account's webhook is removed, so it has no target (answered before Temporal).
      await call(stack, 'PUT', '/webhooks', { key: developer.key, body: { webhook_url: null } });
      const own = await call(stack, 'POST', `/webhooks/deliveries/${messages.own[0]}/redeliver`, { key: sub.key });
      expect(own.status).toBe(409);
      expect(own.body).toMatchObject({ error: 'conflict', message: expect.stringMatching(/has no target/) });
      const makers = await call(stack, 'POST', `/webhooks/deliveries/${messages.others[0]}/redeliver`, {
        key: developer.key,
      });
      expect(makers.status).toBe(409);
    });
  });
});
