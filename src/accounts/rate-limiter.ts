// Per-account request limits in fixed windows, shared by every api process through PostgreSQL. A process leases
// requests from the shared count (one upsert that never lets it pass the limit) and spends them from memory:
// admissions lease one at a time (exact), reads a fiftieth of the limit, so the hot read path meets the database
// once per lease rather than once per request. Leased requests unspent at a window's end lapse with it.
import type { RateLimitsConfig } from '../config/config.ts';
import type { PrismaClient } from '../db/prisma.ts';
import type { Tier } from '../domain/values.ts';

/** `admissions`: POST /generations with a key; `depositClaims`: POST /agents/deposit; `reads`: every other call. */
export type RateLimitBucket = 'admissions' | 'depositClaims' | 'reads';

export interface RateLimitState {
  allowed: boolean;
  limit: number;
  /** What the account may still send in this window (across processes, give or take what others hold leased). */
  remaining: number;
  /** Seconds until the window ends and the count starts again. */
  resetSeconds: number;
  windowSeconds: number;
}

export interface RateLimiter {
  /** Counts one request of the account; null when its tier has no limit for the bucket. */
  take(bucket: RateLimitBucket, account: { id: string; tier: string | null }): Promise<RateLimitState | null>;
  /** Counts one generation of an API key whose policy sets `perMinute`, in one-minute windows. */
  takeKey(keyId: string, perMinute: number): Promise<RateLimitState>;
}

interface Lease {
  windowStart: number;
  /** Leased by this process and not yet spent. */
  tokens: number;
  /** The shared count after this process's last lease. */
  used: number;
  /** The shared count reached the limit: nothing more until the window ends. */
  exhausted: boolean;
  refill?: Promise<void>;
}

/** Past this many accounts in memory, those of ended windows are forgotten. */
const maxLeases = 10_000;

export function createRateLimiter(
  prisma: PrismaClient,
  config: RateLimitsConfig,
  now: () => number = Date.now,
): RateLimiter {
  const windowMs = config.windowSeconds * 1000;
  const limits = { admissions: config.admissions, depositClaims: config.depositClaims, reads: config.reads };
  const leases = new Map<string, Lease>();

  /** Asks the shared count for up to `size` requests in the lease's window: one statement, atomic per key. */
  async function refill(key: string, lease: Lease, limit: number, size: number): Promise<void> {
    const start = new Date(lease.windowStart);
    const [row] = await prisma.$queryRaw<{ used: number; last_grant: number }[]>`
      INSERT INTO rate_limit_windows AS w (key, window_start, used, last_grant)
      VALUES (${key}, ${start}, LEAST(${size}::int, ${limit}::int), LEAST(${size}::int, ${limit}::int))
      ON CONFLICT (key) DO UPDATE SET
        window_start = GREATEST(w.window_start, EXCLUDED.window_start),
        last_grant = CASE WHEN EXCLUDED.window_start > w.window_start THEN EXCLUDED.used
                          ELSE LEAST(${size}::int, GREATEST(${limit}::int - w.used, 0)) END,
        used = CASE WHEN EXCLUDED.window_start > w.window_start THEN EXCLUDED.used
                    ELSE w.used + LEAST(${size}::int, GREATEST(${limit}::int - w.used, 0)) END
      RETURNING used, last_grant`;
    lease.tokens += row!.last_grant;
    lease.used = row!.used;
    if (row!.last_grant === 0) lease.exhausted = true;
  }

  function currentLease(key: string, windowStart: number): Lease {
    const known = leases.get(key);
    if (known?.windowStart === windowStart) return known;
    if (leases.size >= maxLeases)
      for (const [other, lease] of leases) if (lease.windowStart < windowStart) leases.delete(other);
    const lease: Lease = { windowStart, tokens: 0, used: 0, exhausted: false };
    leases.set(key, lease);
    return lease;
  }

  /** One request of `key`, leased `size` at a time from the shared count of its window. */
  async function takeFrom(key: string, limit: number, window: number, size: number): Promise<RateLimitState> {
    const at = now();
    const windowStart = Math.floor(at / window) * window;
    const lease = currentLease(key, windowStart);
    // Concurrent requests of one key share one refill; each takes a token once it lands.
    while (lease.tokens === 0 && !lease.exhausted) {
      lease.refill ??= refill(key, lease, limit, size).finally(() => {
        lease.refill = undefined;
      });
      await lease.refill;
    }
    const allowed = lease.tokens > 0;
    if (allowed) lease.tokens -= 1;
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - lease.used) + lease.tokens,
      resetSeconds: Math.max(1, Math.ceil((windowStart + window - at) / 1000)),
      windowSeconds: window / 1000,
    };
  }

  return {
    async take(bucket, account) {
      const limit = limits[bucket][(account.tier ?? 'free') as Tier] ?? 0;
      if (limit === 0) return null;
      // Reads lease a fiftieth of the limit; the small buckets one at a time, so their count is exact.
      const size = bucket === 'reads' ? Math.max(1, Math.floor(limit / 50)) : 1;
      return takeFrom(`${bucket}:${account.id}`, limit, windowMs, size);
    },
    takeKey: (keyId, perMinute) => takeFrom(`key-admissions:${keyId}`, perMinute, 60_000, 1),
  };
}
