// Keys their holders manage, through the real stack: sub-keys with spend policies, each refusal with its code, a
// budget that concurrent admissions cannot overspend (checked where the cost is reserved), and revocation.
import { afterAll, describe, expect, it } from 'vitest';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { call, waitForEnd } from '../helpers/http.ts';
import { useMcpClients } from '../helpers/mcp-client.ts';
import { type OpenAIStandIn, startOpenAIStandIn } from '../stand-ins/openai-compatible.ts';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

let upstream: OpenAIStandIn;
const gateway = useGateway(async () => {
  upstream = await startOpenAIStandIn({
    png: Buffer.from('stand-in-png'),
    mp3: Buffer.from('ID3-stand-in-mp3-bytes'.repeat(20)),
    transcript: { text: 'Hello.', duration: 1 },
  });
  return { providers: { openai: { baseUrl: upstream.baseUrl, apiKey: 'sk-upstream-test', timeoutSeconds: 60 } } };
});
afterAll(() => upstream?.close());
const developer = useFundedDeveloper(gateway);
const stranger = useFundedDeveloper(gateway);
// Its own account for the 50 concurrent admissions: the tier's admissions a minute are counted per account.
const spender = useFundedDeveloper(gateway);
/** 6 characters of eSpeak at $0.001 per 1,000: $0.000006 each (the cost cap tests below sit just under it). */
const speech = { type: 'text-to-audio', model: 'local/espeak', prompt: 'Hello.' };
/** Upstream speech its provider refuses the first time (400), charged per character like the others. */
const refusedOnce = { type: 'text-to-audio', model: 'openai/tts-1', prompt: 'Hello [[refuse-once]]' };
const refusedOnceMicros = Math.ceil((refusedOnce.prompt.length * 15_000) / 1_000); // $0.015 per 1,000 characters

const connect = useMcpClients(() => gateway.app.url);
const callTool = async (key: string, name: string, args: Record<string, unknown>) =>
  (await (await connect(key)).callTool({ name, arguments: args })) as CallToolResult;

const createKey = (key: string, body: object) => call(gateway, 'POST', '/api/v1/keys', { key, body });

describe('keys', () => {
  it('creates a key shown once, lists it without its secret, and the first key has every scope and no policy', async () => {
    const created = await createKey(developer.key, { name: 'ci', scopes: ['generate', 'read', 'keys'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'ci', scopes: ['generate', 'read', 'keys'], policy: null });
    expect(created.body.api_key).toMatch(/^sk_/);
    const listed = await call(gateway, 'GET', '/api/v1/keys', { key: developer.key });
    expect(listed.status).toBe(200);
    const ids = listed.body.keys.map((key: { id: string }) => key.id);
    expect(ids).toContain(created.body.id);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.api_key);
  });

  it('refuses a read-only key at generation with scope_required, and a models allowlist and a cost cap with theirs', async () => {
    const readOnly = await createKey(developer.key, { name: 'reader', scopes: ['read'] });
    const refused = await call(gateway, 'POST', '/api/v1/generations', { key: readOnly.body.api_key, body: speech });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'scope_required', scope: 'generate' });
    expect((await call(gateway, 'GET', '/api/v1/keys/current', { key: readOnly.body.api_key })).status).toBe(200);

    const narrow = await createKey(developer.key, { name: 'narrow', policy: { models: ['local/lanczos'] } });
    const model = await call(gateway, 'POST', '/api/v1/generations', { key: narrow.body.api_key, body: speech });
    expect(model.status).toBe(403);
    expect(model.body).toMatchObject({ error: 'model_not_allowed', allowed: ['local/lanczos'] });

    const cheap = await createKey(developer.key, { name: 'cheap', policy: { max_cost_per_task: '0.000005' } });
    const cost = await call(gateway, 'POST', '/api/v1/generations', { key: cheap.body.api_key, body: speech });
    expect(cost.status).toBe(403);
    expect(cost.body).toMatchObject({ error: 'cost_limit_exceeded', cost: 0.000006, limit: 0.000005 });
  });

  it('never lets a sub-key create a key wider than itself, nor widen itself', async () => {
    const sub = await createKey(developer.key, {
      name: 'agent',
      scopes: ['generate', 'read', 'keys'],
      policy: { budget: { amount: 1, window: 'week' }, types: ['text-to-audio'] },
    });
    const key = sub.body.api_key;
    const wider = await createKey(key, { name: 'wider', policy: { budget: { amount: 2, window: 'week' } } });
    expect(wider.status).toBe(403);
    expect(wider.body).toMatchObject({ error: 'forbidden', field: 'policy.budget' });
    const shorter = await createKey(key, { name: 'shorter', policy: { budget: { amount: 1, window: 'day' } } });
    expect(shorter.body).toMatchObject({ error: 'forbidden', field: 'policy.budget' });
    // What the request leaves out is inherited: the types allowlist stays.
    const inherited = await createKey(key, { name: 'half', policy: { budget: { amount: 0.5, window: 'week' } } });
    expect(inherited.status).toBe(201);
    expect(inherited.body.policy).toEqual({ budget: { amount: 0.5, window: 'week' }, types: ['text-to-audio'] });
    const self = await call(gateway, 'PATCH', `/api/v1/keys/${sub.body.id}`, {
      key,
      body: { policy: { budget: { amount: 5, window: 'week' } } },
    });
    expect(self.body).toMatchObject({ error: 'forbidden', field: 'policy.budget' });
    // A sub-key manages only itself and what it made: not the account's first key.
    const keys = await call(gateway, 'GET', '/api/v1/keys', { key });
    expect(keys.body.keys.map((each: { id: string }) => each.id).sort()).toEqual(
      [sub.body.id, inherited.body.id].sort(),
    );
  });

  it('a revoked sub-key (and the keys it made) is refused within a second', async () => {
    const sub = await createKey(developer.key, { name: 'temp', scopes: ['generate', 'read', 'keys'] });
    const grandchild = await createKey(sub.body.api_key, { name: 'temp-child' });
    const revoked = await call(gateway, 'DELETE', `/api/v1/keys/${sub.body.id}`, { key: developer.key });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    for (const key of [sub.body.api_key, grandchild.body.api_key])
      expect((await call(gateway, 'GET', '/api/v1/keys/current', { key })).status).toBe(401);
  });

  it('50 concurrent admissions on a budget that fits exactly 10: 10 admitted, 40 budget_exceeded, the numbers agree, and the one refused upstream gives its budget back', async () => {
    const budget = (10 * refusedOnceMicros) / 1_000_000;
    const sub = await createKey(spender.key, {
      name: 'budget',
      policy: { budget: { amount: budget, window: 'day' } },
    });
    const key = sub.body.api_key;
    // Nothing ends before every admission is answered: the refund must not make room within the 50.
    const release = upstream.holdSpeech();
    let answers: Awaited<ReturnType<typeof call>>[];
    try {
      answers = await Promise.all(
        Array.from({ length: 50 }, () => call(gateway, 'POST', '/api/v1/generations', { key, body: refusedOnce })),
      );
      // A refusal writes nothing: no task row, nothing reserved (upstream still holds the 10 admitted).
      expect(await gateway.database.prisma.task.count({ where: { apiKeyId: sub.body.id } })).toBe(10);
      const held = await gateway.database.prisma.balance.findUniqueOrThrow({ where: { accountId: spender.accountId } });
      expect(held.reserved).toBe(BigInt(10 * refusedOnceMicros));
    } finally {
      release();
    }
    const admitted = answers.filter((answer) => answer.status === 202);
    const refused = answers.filter((answer) => answer.status === 403);
    const statuses = answers.map((answer) => `${answer.status} ${answer.body.error ?? ''}`);
    expect(statuses.sort()).toEqual([...Array(10).fill('202 '), ...Array(40).fill('403 budget_exceeded')]);
    expect(refused[0]!.body).toMatchObject({ error: 'budget_exceeded', limit: budget, window: 'day' });
    expect(refused[0]!.body.resets_at).toMatch(/T00:00:00.000Z$/);
    const ended = await Promise.all(
      admitted.map((answer) => waitForEnd(gateway, { key, pollUrl: answer.body.poll_url })),
    );
    // The provider refused the first it was sent: that task failed, and its reservation went back to the budget.
    expect(ended.map((task) => task.status).sort()).toEqual([...Array(9).fill('completed'), 'failed']);

    const spent = (9 * refusedOnceMicros) / 1_000_000;
    const current = await call(gateway, 'GET', '/api/v1/keys/current', { key });
    expect(current.body).toMatchObject({ window: 'day', spent, reserved: 0 });
    expect(current.body.remaining).toBeCloseTo(refusedOnceMicros / 1_000_000, 9);
    const charged = await gateway.database.prisma.ledgerEntry.aggregate({
      where: { kind: 'charge', taskId: { in: admitted.map((answer) => answer.body.id) } },
      _sum: { amount: true },
    });
    expect(charged._sum.amount).toBe(BigInt(-9 * refusedOnceMicros));
    // The key that made it counts its sub-key's spend too.
    const parent = await call(gateway, 'GET', '/api/v1/keys/current', { key: spender.key });
    expect(parent.body.spent).toBeGreaterThanOrEqual(spent);
    // The list and the key's own page show the same window as the key itself sees.
    const { keys } = (await call(gateway, 'GET', '/api/v1/keys', { key: spender.key })).body;
    const window = ({ window, spent, reserved, remaining, resets_at }: Record<string, unknown>) => ({
      ...{ window, spent, reserved, remaining, resets_at },
    });
    expect(window(keys.find((listed: { id: string }) => listed.id === sub.body.id))).toEqual(window(current.body));
    const shown = await call(gateway, 'GET', `/api/v1/keys/${sub.body.id}`, { key: spender.key });
    expect(window(shown.body)).toEqual(window(current.body));

    const oneMore = await call(gateway, 'POST', '/api/v1/generations', { key, body: refusedOnce });
    expect(oneMore.status).toBe(202);
    const overBudget = await call(gateway, 'POST', '/api/v1/generations', { key, body: refusedOnce });
    expect(overBudget.body.error).toBe('budget_exceeded');
  });

  it('refuses over MCP with the same codes: a read-only key generating, a model outside the allowlist, a cost over the cap', async () => {
    const readOnly = await createKey(developer.key, { name: 'mcp-reader', scopes: ['read'] });
    const scoped = await callTool(readOnly.body.api_key, 'generate', speech);
    expect(scoped.isError).toBe(true);
    expect(scoped.structuredContent).toMatchObject({ error: 'scope_required', scope: 'generate' });
    const narrow = await createKey(developer.key, { name: 'mcp-narrow', policy: { models: ['local/lanczos'] } });
    const model = await callTool(narrow.body.api_key, 'generate', speech);
    expect(model.isError).toBe(true);
    expect(model.structuredContent).toMatchObject({ error: 'model_not_allowed' });
    const cheap = await createKey(developer.key, { name: 'mcp-cheap', policy: { max_cost_per_task: '0.000005' } });
    const cost = await callTool(cheap.body.api_key, 'generate', speech);
    expect(cost.isError).toBe(true);
    expect(cost.structuredContent).toMatchObject({ error: 'cost_limit_exceeded', cost: 0.000006, limit: 0.000005 });
  });

  it("a quote says whether the key's policy would admit the request, and why not", async () => {
    const narrow = await createKey(developer.key, { name: 'quoted', policy: { types: ['upscale'] } });
    const refused = await call(gateway, 'POST', '/api/v1/agents/quote', { key: narrow.body.api_key, body: speech });
    expect(refused.status).toBe(200);
    expect(refused.body).toMatchObject({ key_allows: false, key_refusal: { error: 'type_not_allowed' } });
    const open = await call(gateway, 'POST', '/api/v1/agents/quote', { key: developer.key, body: speech });
    expect(open.body).toMatchObject({ key_allows: true, key_refusal: null });
  });

  it("a key with a policy sees only the tasks it created: another key's task is not found, in reads and cancels", async () => {
    const limited = await createKey(developer.key, { name: 'own-tasks', policy: { types: ['text-to-audio'] } });
    const others = await call(gateway, 'POST', '/api/v1/generations', { key: developer.key, body: speech });
    const own = await call(gateway, 'POST', '/api/v1/generations', { key: limited.body.api_key, body: speech });
    const key = limited.body.api_key;
    expect((await call(gateway, 'GET', `/api/v1/generations/${own.body.id}`, { key })).status).toBe(200);
    expect((await call(gateway, 'GET', `/api/v1/generations/${others.body.id}`, { key })).status).toBe(404);
    expect((await call(gateway, 'POST', `/api/v1/generations/${others.body.id}/cancel`, { key })).status).toBe(404);
    const listed = await call(gateway, 'GET', '/api/v1/generations', { key });
    expect(listed.body.generations.map((task: { id: string }) => task.id)).toEqual([own.body.id]);
    // The account's first key sees both, and can ask for one key's.
    const byKey = await call(gateway, 'GET', `/api/v1/generations?key_id=${limited.body.id}`, { key: developer.key });
    expect(byKey.body.generations.map((task: { id: string }) => task.id)).toEqual([own.body.id]);
    expect((await call(gateway, 'GET', `/api/v1/generations/${own.body.id}`, { key: developer.key })).status).toBe(200);
  });

  it('gives a sub-agent its own capped key over MCP, and revokes it', async () => {
    const policy = { budget: { amount: 0.5, window: 'day' }, types: ['text-to-audio'] };
    const created = await callTool(developer.key, 'create_key', {
      name: 'sub-agent',
      scopes: ['generate', 'read'],
      policy,
    });
    expect(created.isError).toBeFalsy();
    const sub = created.structuredContent as { id: string; api_key: string };
    const current = await callTool(sub.api_key, 'get_current_key', {});
    expect(current.structuredContent).toMatchObject({ id: sub.id, window: 'day', remaining: 0.5 });
    // The sub-agent's key has no keys scope: it cannot make keys of its own.
    const refused = await callTool(sub.api_key, 'create_key', { name: 'grandchild' });
    expect(refused.structuredContent).toMatchObject({ error: 'scope_required', scope: 'keys' });
    const revoked = await callTool(developer.key, 'revoke_key', { id: sub.id });
    expect(revoked.structuredContent).toMatchObject({ id: sub.id, revoked_at: expect.any(String) });
  });
  it("never reaches a key it does not manage: another account's, a sibling's, its maker's, or an id in disguise", async () => {
    const theirs = await createKey(stranger.key, { name: 'theirs' });
    const first = await createKey(developer.key, {
      name: 'first',
      scopes: ['generate', 'read', 'keys'],
      policy: { types: ['text-to-audio'] },
    });
    const sibling = await createKey(developer.key, { name: 'sibling', policy: { types: ['text-to-audio'] } });
    const own = await call(gateway, 'GET', '/api/v1/keys', { key: developer.key });
    const maker = own.body.keys.find((key: { name: string; policy: unknown }) => key.policy === null)!;
    for (const [caller, id] of [
      [developer.key, theirs.body.id],
      [first.body.api_key, sibling.body.id],
      [first.body.api_key, maker.id],
    ] as const) {
      for (const method of ['GET', 'DELETE'] as const)
        expect((await call(gateway, method, `/api/v1/keys/${id}`, { key: caller })).status).toBe(404);
      const patched = await call(gateway, 'PATCH', `/api/v1/keys/${id}`, { key: caller, body: { name: 'mine' } });
      expect(patched.status).toBe(404);
    }
    const listed = await call(gateway, 'GET', '/api/v1/keys', { key: first.body.api_key });
    expect(listed.body.keys.map((key: { id: string }) => key.id)).toEqual([first.body.id]);
    // Encoded separators, traversal and another id smuggled in are refused as ids, naming the field.
    for (const disguised of [`${theirs.body.id}%2F..`, `..%2F${theirs.body.id}`, `${first.body.id}%00`, 'current%20']) {
      const answer = await call(gateway, 'GET', `/api/v1/keys/${disguised}`, { key: developer.key });
      expect([400, 404]).toContain(answer.status);
      expect(answer.body.error).toMatch(/^(validation_error|not_found)$/);
    }
    // Nothing was changed or revoked by any of it.
    const theirsNow = await call(gateway, 'GET', `/api/v1/keys/${theirs.body.id}`, { key: stranger.key });
    expect(theirsNow.body).toMatchObject({ name: 'theirs', revoked_at: null });
    expect((await call(gateway, 'GET', '/api/v1/keys/current', { key: developer.key })).status).toBe(200);
  });
});
