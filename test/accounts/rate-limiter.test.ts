// The rate limiter on real PostgreSQL: limiters of several api processes share one count, leases never let them
// pass the limit together, reads meet the database once per lease, and a new window starts the count again.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Tier } from '../../src/domain/values.ts';
import { createRateLimiter } from '../../src/accounts/rate-limiter.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

const everyTier = (limit: number): Record<Tier, number> => ({
  free: limit,
  starter: limit,
  pro: limit,
  enterprise: limit,
});
const config = (admissions: number, reads: number, depositClaims = admissions) => ({
  windowSeconds: 60,
  admissions: everyTier(admissions),
  reads: everyTier(reads),
  depositClaims: everyTier(depositClaims),
});
let accounts = 0;
const newAccount = () => ({ id: `acct_${++accounts}`, tier: null });

describe('createRateLimiter', () => {
  it('counts deposit claims in their own small bucket, exactly, apart from reads', async () => {
    const [first, second] = [1, 2].map(() => createRateLimiter(database.prisma, config(5, 100, 3)));
    const account = newAccount();
    const claims = [];
    for (let claim = 0; claim < 4; claim++)
      claims.push(await [first, second][claim % 2]!.take('depositClaims', account));
    expect(claims.map((state) => [state?.allowed, state?.limit])).toEqual([
      [true, 3],
      [true, 3],
      [true, 3],
      [false, 3],
    ]);
    expect(await first!.take('reads', account)).toMatchObject({ allowed: true, limit: 100 });
  });

  it('three processes on one database, taking at once, admit exactly the limit together', async () => {
    const limiters = [1, 2, 3].map(() => createRateLimiter(database.prisma, config(5, 100)));
    const account = newAccount();
    for (const bucket of ['admissions', 'reads'] as const) {
      const states = await Promise.all(Array.from({ length: 150 }, (_, i) => limiters[i % 3]!.take(bucket, account)));
      expect(states.filter((state) => state!.allowed)).toHaveLength(bucket === 'admissions' ? 5 : 100);
    }
  });

  it('reads lease a fiftieth of the limit at a time: one database statement per lease, not per request', async () => {
    const limiter = createRateLimiter(database.prisma, config(5, 1000));
    const queries = vi.spyOn(database.prisma, '$queryRaw');
    try {
      const account = newAccount();
      const states = [];
      for (let i = 0; i < 60; i++) states.push(await limiter.take('reads', account));
      expect(states.every((state) => state!.allowed)).toBe(true);
      expect(queries).toHaveBeenCalledTimes(3); // 20 requests per lease
      expect(states.map((state) => state!.remaining).slice(0, 3)).toEqual([999, 998, 997]);
    } finally {
      queries.mockRestore();
    }
  });

  it('refuses once the window is spent without asking the database again, and counts anew in the next window', async () => {
    let now = Date.UTC(2030, 0, 1, 12, 0, 10);
    const limiter = createRateLimiter(database.prisma, config(2, 100), () => now);
    const account = newAccount();
    const taken = [];
    for (let i = 0; i < 3; i++) taken.push(await limiter.take('admissions', account));
    expect(taken.map((state) => state!.allowed)).toEqual([true, true, false]);
    expect(taken[2]).toEqual({ allowed: false, limit: 2, remaining: 0, resetSeconds: 50, windowSeconds: 60 });
    const queries = vi.spyOn(database.prisma, '$queryRaw');
    try {
      expect((await limiter.take('admissions', account))!.allowed).toBe(false);
      expect(queries).not.toHaveBeenCalled();
    } finally {
      queries.mockRestore();
    }
    now += 60_000;
    expect(await limiter.take('admissions', account)).toMatchObject({ allowed: true, remaining: 1, resetSeconds: 50 });
  });

  it('a tier whose limit is 0 is not counted', async () => {
    const limiter = createRateLimiter(database.prisma, {
      ...config(2, 2),
      admissions: { ...everyTier(2), enterprise: 0 },
    });
    expect(await limiter.take('admissions', { id: 'acct_big', tier: 'enterprise' })).toBeNull();
    expect(await database.prisma.rateLimitWindow.count({ where: { key: 'admissions:acct_big' } })).toBe(0);
  });
});
