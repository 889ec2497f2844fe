// While Temporal or PostgreSQL is unreachable, the endpoints that need them answer 503 service_unavailable with
// Retry-After, in bounded time; never 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrisma, type PrismaClient } from '../../src/db/prisma.ts';
import { credit } from '../../src/ledger/ledger.ts';
import { createDeveloperWithKey } from '../helpers/accounts.ts';
import { startTestApp, type TestApp, useAppWithDatabase } from '../helpers/app.ts';
import { call } from '../helpers/http.ts';
import { freePort } from '../../harness/ports.ts';
import { createTaskRow } from '../helpers/task-rows.ts';

const expectUnavailable = (response: { status: number; headers: Headers; body: any }) => {
  expect(response.status).toBe(503);
  expect(response.body).toMatchObject({ error: 'service_unavailable', message: expect.stringMatching(/retry/i) });
  expect(response.headers.get('retry-after')).toBe('5');
};

describe('Temporal unreachable', () => {
  // startTestApp's default Temporal client points at a port nothing listens on.
  const stack = useAppWithDatabase();
  let key: string;
  let accountId: string;
  beforeAll(async () => {
    const developer = await createDeveloperWithKey(stack.database.prisma);
    key = developer.apiKey.key;
    accountId = developer.developerId;
    const amount = 5_000_000n;
    const idempotencyKey = `topup:${developer.developerId}`;
    await credit(stack.database.prisma, {
      accountId: developer.developerId,
      amount,
      kind: 'adjustment',
      idempotencyKey,
    });
  });

  it('POST /generations answers 503 with Retry-After, and nothing is reserved', async () => {
    const started = Date.now();
    const response = await call(stack, 'POST', '/generations', {
      key,
      body: { type: 'upscale', model: 'local/lanczos', image_url: 'https://inputs.example/a.png' },
    });
    expectUnavailable(response);
    expect(Date.now() - started).toBeLessThan(50_000);
    const balances = await stack.database.prisma.balance.findMany({ where: { reserved: { gt: 0n } } });
    expect(balances).toEqual([]);
  }, 60_000);

  it('GET /generations/{id} with Prefer: wait answers the task as it is once the wait is up, as without it', async () => {
    const id = await createTaskRow(stack.database.prisma, accountId, 'processing');
    const started = Date.now();
    const response = await call(stack, 'GET', `/generations/${id}`, { key, headers: { Prefer: 'wait=2' } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id, status: 'processing' });
    expect(response.headers.get('preference-applied')).toBeNull();
    // Bounded by the wait, not by Temporal's connection attempts; generous for a loaded CI machine.
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('PostgreSQL unreachable', () => {
  let prisma: PrismaClient;
  let app: TestApp;
  beforeAll(async () => {
    const url = `postgresql://gateway:gateway@127.0.0.1:${await freePort()}/gateway`;
    prisma = createPrisma(url);
    app = await startTestApp({ database: { prisma, url } });
  });
  afterAll(async () => {
    await app?.close();
    await prisma?.$disconnect();
  });

  it.each([
    ['POST', '/agents/register', { agent_name: 'Ada' }],
    ['GET', '/account/balance', undefined],
    ['GET', '/agents/balance', undefined],
    ['POST', '/generations', { type: 'upscale', model: 'local/lanczos', image_url: 'https://inputs.example/a.png' }],
  ])('%s %s answers 503 with Retry-After', async (method, path, body) => {
    const key = path.startsWith('/agents/') ? `rf_${'a'.repeat(43)}` : `sk_${'a'.repeat(43)}`;
    expectUnavailable(await call({ app }, method, path, { body, key: path === '/agents/register' ? undefined : key }));
  });
});
