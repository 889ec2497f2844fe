// Bearer authentication and GET /account/balance: every 401 and 403 the spec lists, keys stored only as hashes.
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLastUsedRecorder, issueApiKey, revokeApiKey } from '../../src/accounts/api-keys.ts';
import { charge, credit, reserve } from '../../src/ledger/ledger.ts';
import { createAgentWithKey, createDeveloperWithKey } from '../helpers/accounts.ts';
import { useAppWithDatabase } from '../helpers/app.ts';
import { call } from '../helpers/http.ts';

const stack = useAppWithDatabase();
let developer: Awaited<ReturnType<typeof createDeveloperWithKey>>;
let agentKey: string;
let expiredKey: string;
let revokedKey: string;

beforeAll(async () => {
  developer = await createDeveloperWithKey(stack.database.prisma, { tier: 'starter' });
  agentKey = (await createAgentWithKey(stack.database.prisma)).apiKey.key;
  expiredKey = (
    await issueApiKey(stack.database.prisma, {
      accountId: developer.developerId,
      kind: 'developer',
      name: 'old',
      expiresAt: new Date(Date.now() - 1000),
    })
  ).key;
  const revoked = await issueApiKey(stack.database.prisma, {
    accountId: developer.developerId,
    kind: 'developer',
    name: 'leaked',
  });
  await revokeApiKey(stack.database.prisma, revoked.id);
  revokedKey = revoked.key;
});

/** GET /account/balance with this Authorization header, as it is (or none). */
const getBalance = (authorization?: string) =>
  call(stack, 'GET', '/account/balance', { headers: authorization === undefined ? {} : { authorization } });

describe('authentication', () => {
  const cases: [string, () => string | undefined, number, string, RegExp][] = [
    ['no Authorization header', () => undefined, 401, 'unauthorized', /^Missing API key/],
    ['an empty Authorization header', () => '', 401, 'unauthorized', /^Missing API key/],
    [
      'another scheme',
      () => `Basic ${Buffer.from('a:b').toString('base64')}`,
      401,
      'unauthorized',
      /^Malformed API key/,
    ],
    ['Bearer without a key', () => 'Bearer ', 401, 'unauthorized', /^Malformed API key|^Missing API key/],
    ['an unknown prefix', () => `Bearer pk_${'a'.repeat(43)}`, 401, 'unauthorized', /^Malformed API key/],
    ['a key too short', () => 'Bearer sk_abc', 401, 'unauthorized', /^Malformed API key/],
    ['an unknown key', () => `Bearer sk_${'a'.repeat(43)}`, 401, 'unauthorized', /^Invalid API key\.$/],
    [
      'a key with its prefix changed',
      () => `Bearer rf_${developer.apiKey.key.slice(3)}`,
      401,
      'unauthorized',
      /^Invalid API key\.$/,
    ],
    ['an expired key', () => `Bearer ${expiredKey}`, 401, 'unauthorized', /^This API key has expired\.$/],
    ['a revoked key', () => `Bearer ${revokedKey}`, 401, 'unauthorized', /^This API key has been revoked\.$/],
    ['an agent key on a developer endpoint', () => `Bearer ${agentKey}`, 403, 'forbidden', /needs a developer key/],
  ];

  it.each(cases)('%s → %i %s', async (_name, authorization, status, error, message) => {
    const response = await getBalance(authorization());
    expect(response.status).toBe(status);
    expect(response.body).toEqual({ error, message: expect.stringMatching(message) });
    if (status === 401) expect(response.headers.get('www-authenticate')).toBe('Bearer realm="api"');
  });

  it('accepts the scheme name in any case', async () => {
    expect((await getBalance(`bearer ${developer.apiKey.key}`)).status).toBe(200);
  });

  it('stores keys only as SHA-256 hashes: the row cannot give the key back', async () => {
    const row = await stack.database.prisma.apiKey.findUniqueOrThrow({ where: { id: developer.apiKey.id } });
    expect(row.keyHash).toBe(createHash('sha256').update(developer.apiKey.key).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(developer.apiKey.key.slice(3));
    expect(row.keyPrefix).toBe(developer.apiKey.key.slice(0, 11));
    expect(developer.apiKey.key).toMatch(/^sk_[0-9A-Za-z]{43}$/);
  });

  it('accepts legacy vega_ developer keys', async () => {
    const key = `vega_${'Z'.repeat(40)}`;
    await stack.database.prisma.apiKey.create({
      data: {
        id: 'key_legacy',
        accountId: developer.developerId,
        name: 'legacy',
        keyHash: createHash('sha256').update(key).digest('hex'),
        keyPrefix: key.slice(0, 13),
      },
    });
    expect((await getBalance(`Bearer ${key}`)).status).toBe(200);
  });
});

describe('GET /account/balance', () => {
  it('reports balance, reserved, available and spent in USD, the tier, and the key used', async () => {
    const accountId = developer.developerId;
    await credit(stack.database.prisma, {
      accountId,
      amount: 12_500_000n,
      kind: 'adjustment',
      idempotencyKey: `topup:${accountId}`,
    });
    await reserve(stack.database.prisma, {
      accountId,
      amount: 2_000_000n,
      taskId: 'gen_x',
      idempotencyKey: 'gen_x:reserve',
    });
    await charge(stack.database.prisma, {
      accountId,
      amount: 45_000n,
      taskId: 'gen_x',
      idempotencyKey: 'gen_x:charge',
    });
    await reserve(stack.database.prisma, {
      accountId,
      amount: 1_000_000n,
      taskId: 'gen_y',
      idempotencyKey: 'gen_y:reserve',
    });

    const { status, body } = await getBalance(`Bearer ${developer.apiKey.key}`);
    expect(status).toBe(200);
    expect(body).toEqual({
      developer_id: accountId,
      balance: '12.455',
      balance_reserved: '1.00',
      balance_available: '11.455',
      total_spent: '0.045',
      currency: 'USD',
      tier: 'starter',
      api_key: {
        id: developer.apiKey.id,
        name: 'default',
        key_prefix: developer.apiKey.keyPrefix,
        last_used_at: expect.any(String),
        expires_at: null,
      },
    });
  });
});

describe('last_used_at', () => {
  it('is written at most once per interval per key', async () => {
    const key = await issueApiKey(stack.database.prisma, {
      accountId: developer.developerId,
      kind: 'developer',
      name: 'busy',
    });
    const writes: Date[] = [];
    const record = createLastUsedRecorder(stack.database.prisma, 60_000);
    const start = new Date('2026-01-01T00:00:00Z');
    for (let second = 0; second < 180; second += 5) {
      const at = new Date(start.getTime() + second * 1000);
      if (record(key.id, at)) writes.push(at);
    }
    expect(writes.map((at) => at.toISOString())).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:01:00.000Z',
      '2026-01-01T00:02:00.000Z',
    ]);
    await expect
      .poll(async () =>
        (await stack.database.prisma.apiKey.findUniqueOrThrow({ where: { id: key.id } })).lastUsedAt?.toISOString(),
      )
      .toBe('2026-01-01T00:02:00.000Z');
  });
});

describe('the API key cache (API_KEY_CACHE_SECONDS)', () => {
  const cached = useAppWithDatabase({ config: { accounts: { apiKeyCacheSeconds: 1 } } });

  it('answers a known key from memory for a moment, and refuses it within a second once revoked', async () => {
    const owner = await createDeveloperWithKey(cached.database.prisma);
    const balance = () => call(cached, 'GET', '/account/balance', { key: owner.apiKey.key });
    expect((await balance()).status).toBe(200);
    await revokeApiKey(cached.database.prisma, owner.apiKey.id);
    const revokedAt = Date.now();
    // Trusted from the cache right after the revocation: the database is not read on every call.
    expect((await balance()).status).toBe(200);
    await expect.poll(async () => (await balance()).status, { timeout: 5_000, interval: 100 }).toBe(401);
    expect(Date.now() - revokedAt).toBeLessThan(3_000);
  });

  it('refuses a cached key the moment it expires', async () => {
    const owner = await createDeveloperWithKey(cached.database.prisma);
    const key = await issueApiKey(cached.database.prisma, {
      accountId: owner.developerId,
      kind: 'developer',
      expiresAt: new Date(Date.now() + 600),
    });
    const balance = () => call(cached, 'GET', '/account/balance', { key: key.key });
    expect((await balance()).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 700));
    const expired = await balance();
    expect(expired.status).toBe(401);
    expect(expired.body.message).toBe('This API key has expired.');
  });
});
