// Which activity failures are deterministic (non-retryable at once) and which are outages (retried), with the real
// errors Prisma raises against a real PostgreSQL.
import { ApplicationFailure } from '@temporalio/activity';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyFailures } from '../../activities/failures.ts';
import { createPrisma } from '../../src/db/prisma.ts';
import { createFundedAccount } from '../helpers/accounts.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { freePort } from '../../harness/ports.ts';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

const failureOf = async (activity: () => Promise<unknown>) =>
  classifyFailures({ activity })
    .activity()
    .then(
      () => undefined,
      (error: unknown) => error,
    );

describe('classifyFailures', () => {
  it.each([
    ['a NUL in jsonb (22P05)', { prompt: 'a\u0000b' }],
    ['an unpaired surrogate in jsonb (22P02)', { prompt: 'a\ud800b' }],
  ])('%s is a non-retryable DeterministicFailure', async (_, request) => {
    const accountId = await createFundedAccount(database.prisma);
    const failure = await failureOf(() =>
      database.prisma.task.create({
        data: {
          id: `gen_${Math.random()}`,
          accountId,
          type: 't',
          model: 'm',
          status: 'queued',
          request,
          costReserved: 0n,
        },
      }),
    );
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'DeterministicFailure', nonRetryable: true });
  });

  it('a unique violation stays retryable: racing attempts of an idempotent write meet that way', async () => {
    const accountId = await createFundedAccount(database.prisma);
    const failure = await failureOf(() =>
      database.prisma.account.create({ data: { id: accountId, kind: 'developer', name: 'again' } }),
    );
    expect(failure).not.toBeInstanceOf(ApplicationFailure);
  });

  it('an unreachable database stays retryable: an outage ends', async () => {
    const unreachable = createPrisma(`postgresql://gateway:gateway@127.0.0.1:${await freePort()}/gateway`);
    const failure = await failureOf(() => unreachable.task.findFirst());
    expect(failure).not.toBeInstanceOf(ApplicationFailure);
    await unreachable.$disconnect();
  });

  it('passes results and other errors through', async () => {
    expect(await classifyFailures({ ok: async () => 42 }).ok()).toBe(42);
    const plain = new Error('upstream 503');
    expect(await failureOf(() => Promise.reject(plain))).toBe(plain);
  });
});
