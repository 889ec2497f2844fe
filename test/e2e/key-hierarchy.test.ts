// A key is bound by the keys above it, through the real stack: budgets a sub-key cannot widen by shortening their
// window, revocations and narrowed scopes or expiry that reach every key below, creations raced against a revocation,
// a narrower key that cannot touch wider ones, rate limits shared down the chain, and key changes seen at once.
import { describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../src/accounts/api-keys.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { call } from '../helpers/http.ts';

const gateway = useGateway();
const developer = useFundedDeveloper(gateway);
/** 6 characters of eSpeak: a generation every key here can afford. */
const speech = { type: 'text-to-audio', model: 'local/espeak', prompt: 'Hello.' };
const allScopes = ['generate', 'read', 'keys'];

const createKey = (key: string, body: object) => call(gateway, 'POST', '/api/v1/keys', { key, body });
const patchKey = (key: string, id: string, body: object) => call(gateway, 'PATCH', `/api/v1/keys/${id}`, { key, body });
const currentStatus = async (key: string) => (await call(gateway, 'GET', '/api/v1/keys/current', { key })).status;
const generate = (key: string) => call(gateway, 'POST', '/api/v1/generations', { key, body: speech });

describe('budgets within the maker', () => {
  it('a key cannot widen its budget by shortening its window, nor change its own budget at all', async () => {
    const sub = await createKey(developer.key, {
      name: 'total-budget',
      scopes: allScopes,
      policy: { budget: { amount: 0.002, window: 'total' } },
    });
    expect(sub.status).toBe(201);
    const key = sub.body.api_key;
    const shorter = await patchKey(key, sub.body.id, { policy: { budget: { amount: 0.002, window: 'day' } } });
    expect(shorter.status).toBe(403);
    expect(shorter.body).toMatchObject({ error: 'forbidden', field: 'policy.budget' });
    const smaller = await patchKey(key, sub.body.id, { policy: { budget: { amount: 0.001, window: 'total' } } });
    expect(smaller.body).toMatchObject({ error: 'forbidden', field: 'policy.budget' });
    // Nor through a child it makes: $0.002 a day is not within $0.002 in all.
    const child = await createKey(key, { name: 'daily', policy: { budget: { amount: 0.002, window: 'day' } } });
    expect(child.body).toMatchObject({ error: 'forbidden', field: 'policy.budget' });
    const stored = await gateway.database.prisma.apiKey.findUniqueOrThrow({ where: { id: sub.body.id } });
    expect(stored.policy).toEqual({ budget: { amount_micros: '2000', window: 'total' } });
    // Its maker may set it.
    const byMaker = await patchKey(developer.key, sub.body.id, {
      policy: { budget: { amount: 0.001, window: 'day' } },
    });
    expect(byMaker.status).toBe(200);
  });

  it('a child with the same amount over a longer window is within its maker ($5 a day makes $5 a month)', async () => {
    const maker = await createKey(developer.key, {
      name: 'daily-maker',
      scopes: allScopes,
      policy: { budget: { amount: 5, window: 'day' } },
    });
    const monthly = await createKey(maker.body.api_key, {
      name: 'monthly',
      policy: { budget: { amount: 5, window: 'month' } },
    });
    expect(monthly.status).toBe(201);
    expect(monthly.body.policy).toEqual({ budget: { amount: 5, window: 'month' } });
  });

  it('a sub-key made without scopes gets its maker’s but keys', async () => {
    const sub = await createKey(developer.key, { name: 'no-scopes-named' });
    expect(sub.body.scopes).toEqual(['generate', 'read']);
    const refused = await createKey(sub.body.api_key, { name: 'grandchild' });
    expect(refused.body).toMatchObject({ error: 'scope_required', scope: 'keys' });
  });
});

describe('the keys above a key bind it', () => {
  it('a key whose maker is revoked or expired is refused, though its own row stands', async () => {
    const maker = await createKey(developer.key, { name: 'maker', scopes: allScopes });
    const child = await createKey(maker.body.api_key, { name: 'child', scopes: allScopes });
    const grandchild = await createKey(child.body.api_key, { name: 'grandchild' });
    expect(await currentStatus(grandchild.body.api_key)).toBe(200);
    // genctl's revocation touches the one key it names.
    await revokeApiKey(gateway.database.prisma, maker.body.id);
    expect((await gateway.database.prisma.apiKey.findUniqueOrThrow({ where: { id: child.body.id } })).revokedAt).toBe(
      null,
    );
    // Each process notices the change within half a second; a key whose cached answer ran out sees it sooner, so every
    // key below is waited for on its own.
    await expect.poll(() => currentStatus(child.body.api_key)).toBe(401);
    await expect.poll(() => currentStatus(grandchild.body.api_key)).toBe(401);
    const refused = await call(gateway, 'GET', '/api/v1/keys/current', { key: grandchild.body.api_key });
    expect(refused.body).toMatchObject({ error: 'unauthorized', message: 'This API key has been revoked.' });

    const expiring = await createKey(developer.key, { name: 'expiring', scopes: allScopes });
    const below = await createKey(expiring.body.api_key, { name: 'below' });
    await gateway.database.prisma.apiKey.update({
      where: { id: expiring.body.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    await expect.poll(() => currentStatus(below.body.api_key)).toBe(401);
    const expired = await call(gateway, 'GET', '/api/v1/keys/current', { key: below.body.api_key });
    expect(expired.body.message).toBe('This API key has expired.');
  });

  it('narrowing a key’s scopes or expiry narrows every key below it', async () => {
    const maker = await createKey(developer.key, { name: 'narrowed', scopes: allScopes });
    const child = await createKey(maker.body.api_key, { name: 'wide-child', scopes: ['generate', 'read'] });
    expect((await generate(child.body.api_key)).status).toBe(202);
    expect((await patchKey(developer.key, maker.body.id, { scopes: ['read', 'keys'] })).status).toBe(200);
    await expect.poll(async () => (await generate(child.body.api_key)).body.error).toBe('scope_required');

    const soon = new Date(Date.now() + 3_000).toISOString();
    expect((await patchKey(developer.key, maker.body.id, { expires_at: soon })).status).toBe(200);
    await expect.poll(() => currentStatus(child.body.api_key)).toBe(401);
  });

  it('a key without a policy under one that gains a policy sees only its own tasks', async () => {
    const maker = await createKey(developer.key, { name: 'open-maker', scopes: allScopes });
    const child = await createKey(maker.body.api_key, { name: 'open-child' });
    const others = await generate(developer.key);
    const listed = async () =>
      (await call(gateway, 'GET', '/api/v1/generations', { key: child.body.api_key })).body.generations.map(
        (task: { id: string }) => task.id,
      );
    expect(await listed()).toContain(others.body.id);
    const limited = { policy: { types: ['text-to-audio'] } };
    expect((await patchKey(developer.key, maker.body.id, limited)).status).toBe(200);
    await expect.poll(listed).not.toContain(others.body.id);
    expect(
      (await call(gateway, 'GET', `/api/v1/generations/${others.body.id}`, { key: child.body.api_key })).status,
    ).toBe(404);
  });

  it('eight creators racing a revocation of their key leave no child standing', async () => {
    const maker = await createKey(developer.key, { name: 'raced', scopes: allScopes });
    const creator = async () => {
      const made: string[] = [];
      // Each keeps creating until its key is refused; the revocation lands while they do.
      for (let round = 0; round < 200; round++) {
        const answer = await createKey(maker.body.api_key, { name: `raced-${round}` });
        if (answer.status !== 201) break;
        made.push(answer.body.api_key);
      }
      return made;
    };
    const creators = Array.from({ length: 8 }, creator);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const revocation = await call(gateway, 'DELETE', `/api/v1/keys/${maker.body.id}`, { key: developer.key });
    const children = (await Promise.all(creators)).flat();
    expect(revocation.status).toBe(200);
    expect(children.length).toBeGreaterThan(0);
    const standing = await gateway.database.prisma.apiKey.findMany({
      where: { parentId: maker.body.id, revokedAt: null },
    });
    expect(standing.map((key) => key.name)).toEqual([]);
    for (const key of children) expect(await currentStatus(key)).toBe(401);
  });
});

describe('a key manages only keys within it', () => {
  it('a read,keys key cannot revoke, narrow or see the account’s first key, nor wider keys; it manages narrower ones', async () => {
    const keys = await call(gateway, 'GET', '/api/v1/keys', { key: developer.key });
    const root = keys.body.keys.find((key: { parent_id: string | null }) => key.parent_id === null)!;
    const manager = await createKey(developer.key, { name: 'manager', scopes: ['read', 'keys'] });
    const reader = await createKey(developer.key, { name: 'sibling-reader', scopes: ['read'] });
    const generator = await createKey(developer.key, { name: 'sibling-generator', scopes: ['generate', 'read'] });
    const key = manager.body.api_key;
    for (const id of [root.id, generator.body.id]) {
      expect((await call(gateway, 'DELETE', `/api/v1/keys/${id}`, { key })).status).toBe(404);
      expect((await patchKey(key, id, { scopes: ['read'] })).status).toBe(404);
      expect((await call(gateway, 'GET', `/api/v1/keys/${id}`, { key })).status).toBe(404);
    }
    const listed = (await call(gateway, 'GET', '/api/v1/keys', { key })).body.keys.map(
      (each: { id: string }) => each.id,
    );
    expect(listed).toContain(reader.body.id);
    expect(listed).not.toContain(root.id);
    expect(listed).not.toContain(generator.body.id);
    expect((await patchKey(key, reader.body.id, { name: 'renamed' })).status).toBe(200);
    expect((await call(gateway, 'DELETE', `/api/v1/keys/${reader.body.id}`, { key })).status).toBe(200);
    expect(await currentStatus(developer.key)).toBe(200);
    // A key never reaches the keys above it, even one within its own limits.
    const child = await createKey(key, { name: 'manager-child', scopes: ['read', 'keys'] });
    expect((await call(gateway, 'DELETE', `/api/v1/keys/${manager.body.id}`, { key: child.body.api_key })).status).toBe(
      404,
    );
  });
});

describe('limits down the chain', () => {
  it('sub-keys share their maker’s rate_limit_per_minute', async () => {
    const maker = await createKey(developer.key, {
      name: 'rated',
      scopes: allScopes,
      policy: { rate_limit_per_minute: 2 },
    });
    const [first, second] = await Promise.all(
      ['rated-a', 'rated-b'].map((name) => createKey(maker.body.api_key, { name })),
    );
    expect((await generate(first!.body.api_key)).status).toBe(202);
    expect((await generate(second!.body.api_key)).status).toBe(202);
    const third = await generate(first!.body.api_key);
    expect(third.status).toBe(429);
    expect(third.body.message).toContain('a key above this API key');
  });

  it('a changed key’s old scopes are not served from the key cache', async () => {
    const sub = await createKey(developer.key, { name: 'cached', scopes: ['generate', 'read'] });
    expect((await generate(sub.body.api_key)).status).toBe(202);
    expect((await patchKey(developer.key, sub.body.id, { scopes: ['read'] })).status).toBe(200);
    // Within the cache's 5 s, but past the half-second check for changes.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect((await generate(sub.body.api_key)).body.error).toBe('scope_required');
  });
});
