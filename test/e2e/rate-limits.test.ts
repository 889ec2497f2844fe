// Per-account rate limits through the real stack, with two api instances on one database (as two api processes
// are): the count is shared, the N+1th call of a window is 429 `rate_limited` with Retry-After and the RateLimit
// headers, and a refused admission reserves nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tier } from '../../src/domain/values.ts';
import { credit } from '../../src/ledger/ledger.ts';
import { createDeveloperWithKey } from '../helpers/accounts.ts';
import { checkedBalance } from '../helpers/balance.ts';
import { startTestApp, type TestApp, unreadChains, useAppWithDatabase } from '../helpers/app.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { call, type Server } from '../helpers/http.ts';

const perTier = (free: number, pro: number): Record<Tier, number> => ({ free, starter: free, pro, enterprise: 0 });

const gateway = useGateway(() => ({
  rateLimits: {
    // One window for the whole run (windows are aligned to multiples of their length): no rollover mid-test.
    windowSeconds: 1_000_000_000,
    admissions: perTier(2, 3),
    reads: perTier(4, 4),
  },
}));
const developer = useFundedDeveloper(gateway); // pro
const unlimited = useFundedDeveloper(gateway); // made enterprise below
let second: TestApp;
beforeAll(async () => {
  second = await startTestApp({
    database: gateway.database,
    config: gateway.config,
    catalog: gateway.catalog,
    temporal: { client: gateway.env.client, taskQueue: gateway.config.temporal.taskQueue },
  });
  await gateway.database.prisma.account.update({ where: { id: unlimited.accountId }, data: { tier: 'enterprise' } });
});
afterAll(() => second?.close());

const instances = (): Server[] => [gateway, { app: second }];
const speech = { type: 'text-to-audio', model: 'local/espeak', prompt: 'Hello.' };
const rateHeaders = (headers: Headers) =>
  Object.fromEntries(
    ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'ratelimit-policy', 'retry-after'].map((name) => [
      name,
      headers.get(name),
    ]),
  );

describe('rate limits', () => {
  it('the N+1th admission of a window is 429 with Retry-After and RateLimit headers, counted across api instances', async () => {
    const answers = [];
    for (let i = 0; i < 4; i++) {
      answers.push(await call(instances()[i % 2]!, 'POST', '/generations', { key: developer.key, body: speech }));
    }
    expect(answers.map(({ status }) => status)).toEqual([202, 202, 202, 429]);
    expect(answers.map(({ headers }) => headers.get('ratelimit-remaining'))).toEqual(['2', '1', '0', '0']);
    const refused = answers[3]!;
    expect(refused.body).toEqual({
      error: 'rate_limited',
      message: expect.stringMatching(/^Rate limit reached: at most 3 generations every 1000000000 seconds/),
    });
    const headers = rateHeaders(refused.headers);
    expect(headers).toMatchObject({
      'ratelimit-limit': '3',
      'ratelimit-remaining': '0',
      'ratelimit-policy': '3;w=1000000000',
    });
    expect(Number(headers['retry-after'])).toBeGreaterThan(0);
    expect(headers['ratelimit-reset']).toBe(headers['retry-after']);
    // The refusal admitted nothing: three tasks, and only their reservations are held.
    const prisma = gateway.database.prisma;
    const tasks = await prisma.task.findMany({ where: { accountId: developer.accountId } });
    expect(tasks).toHaveLength(3);
    const reservations = await prisma.ledgerEntry.count({ where: { accountId: developer.accountId, kind: 'reserve' } });
    expect(reservations).toBe(3);
    await checkedBalance(prisma, developer.accountId);
  });

  it('reads have their own limit, shared the same way; the tier sets it (0: none, and no headers)', async () => {
    const task = (await gateway.database.prisma.task.findFirstOrThrow({ where: { accountId: developer.accountId } }))
      .id;
    const reads = [];
    for (let i = 0; i < 5; i++) {
      reads.push(await call(instances()[i % 2]!, 'GET', `/generations/${task}`, { key: developer.key }));
    }
    expect(reads.map(({ status }) => status)).toEqual([200, 200, 200, 200, 429]);
    expect(rateHeaders(reads[4]!.headers)).toMatchObject({ 'ratelimit-limit': '4', 'ratelimit-remaining': '0' });
    expect(reads[4]!.headers.get('retry-after')).toMatch(/^\d+$/);
    // Other calls with the key count as reads too.
    expect((await call(gateway, 'GET', '/account/balance', { key: developer.key })).status).toBe(429);

    for (let i = 0; i < 6; i++) {
      const answer = await call(instances()[i % 2]!, 'POST', '/generations', { key: unlimited.key, body: speech });
      expect(answer.status).toBe(202);
      expect(answer.headers.get('ratelimit-limit')).toBeNull();
    }
  });

  it('a malformed request is refused with 400 and not counted', async () => {
    const { apiKey, developerId } = await createDeveloperWithKey(gateway.database.prisma, { tier: 'free' });
    await credit(gateway.database.prisma, {
      accountId: developerId,
      amount: 1_000_000n,
      kind: 'adjustment',
      idempotencyKey: `topup:${developerId}`,
    });
    const post = (body: object) => call(gateway, 'POST', '/generations', { key: apiKey.key, body });
    for (let i = 0; i < 3; i++) expect((await post({ type: 'nonsense' })).status).toBe(400);
    expect((await post(speech)).status).toBe(202);
    expect((await post(speech)).status).toBe(202);
    expect((await post(speech)).status).toBe(429);
  });
});

describe('calls without a key (x402)', () => {
  const paid = useAppWithDatabase({
    config: {
      x402: { enabled: true },
      ...unreadChains,
      rateLimits: { windowSeconds: 1_000_000_000, admissions: perTier(2, 3), reads: perTier(4, 4) },
    },
  });
  const upscale = { type: 'upscale', model: 'local/lanczos', image_url: 'https://inputs.example/photo.png' };

  it('count against the caller’s address, as free: the N+1th is 429 before it is priced, and names the address', async () => {
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await call(paid, 'POST', '/generations', { body: upscale }));
    expect(answers.map(({ status }) => status)).toEqual([402, 402, 429]);
    expect(answers.map(({ headers }) => headers.get('ratelimit-remaining'))).toEqual(['1', '0', '0']);
    expect(answers[2]!.body).toEqual({
      error: 'rate_limited',
      message: expect.stringMatching(/at most 2 generations every 1000000000 seconds for this address/),
    });
    expect(answers[2]!.headers.get('retry-after')).toMatch(/^\d+$/);
    // The public catalog is not counted.
    expect((await call(paid, 'GET', '/models')).status).toBe(200);
  });
});
