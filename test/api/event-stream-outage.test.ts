// An event stream whose LISTEN connection cannot reach PostgreSQL answers 503 with a constant message: nothing of the
// connection string (host, port, user, password, database) or of the driver's error reaches the caller.
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool } from '../../src/db/prisma.ts';
import { PrismaClient } from '../../src/generated/prisma/client.ts';
import { createDeveloperWithKey } from '../helpers/accounts.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { openEventStream } from '../helpers/event-stream.ts';
import { freePort } from '../../harness/ports.ts';

let database: TestDatabase;
let prisma: PrismaClient;
let app: TestApp;
let key: string;
let port: number;

beforeAll(async () => {
  database = await createTestDatabase();
  // Keys are read from the real database; the feed listens on another, where nothing listens.
  prisma = new PrismaClient({ adapter: new PrismaPg(createPool(database.url), { disposeExternalPool: true }) });
  port = await freePort();
  const url = `postgresql://leaky_user:leaky_secret@127.0.0.1:${port}/leaky_db`;
  app = await startTestApp({ database: { prisma, url } });
  key = (await createDeveloperWithKey(prisma)).apiKey.key;
});
afterAll(async () => {
  await app?.close();
  await prisma?.$disconnect();
  await database?.drop();
});

describe('an event stream while its database connection fails', () => {
  it('answers 503 with a constant message naming no host, port, user or driver error', async () => {
    const stream = await openEventStream({ app }, '/events', { key });
    expect(stream.status).toBe(503);
    expect(stream.headers.get('retry-after')).toBe('5');
    expect(stream.body).toEqual({
      error: 'service_unavailable',
      message: 'The event stream could not reach the database; nothing was sent. Retry shortly.',
    });
    const text = JSON.stringify(stream.body);
    for (const leak of ['127.0.0.1', String(port), 'leaky', 'ECONNREFUSED', 'connect']) {
      expect(text).not.toContain(leak);
    }
  });
});
