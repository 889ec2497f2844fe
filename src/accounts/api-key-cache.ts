// API keys are checked on every request: a few seconds' cache saves the database read per call. A revocation
// empties it within half a second (one count of revoked keys per interval, not a read per call); an expired key is
// refused at once (its expiry travels with the cached answer).
import type { PrismaClient } from '../db/prisma.ts';
import { authenticateApiKey, type AuthResult, hashApiKey } from './api-keys.ts';

/** Enough for every key a busy gateway sees in a few seconds; past it the oldest answers go first. */
const maxEntries = 10_000;
/** How often a process looks for new revocations while it serves from the cache. */
const revocationCheckMs = 500;

export function createApiKeyAuthentication(db: PrismaClient, ttlMs: number) {
  const cache = new Map<string, { result: AuthResult & { ok: true }; until: number }>();
  let revoked: { count: bigint; checkedAt: number } | undefined;
  let checking: Promise<void> | undefined;
  /** Keys are revoked, never un-revoked: a new count means a new revocation, and every cached answer is dropped. */
  const forgetRevoked = async (now: number) => {
    if (revoked && now - revoked.checkedAt < revocationCheckMs) return;
    checking ??= db.$queryRaw<{ count: bigint }[]>`SELECT count(*) AS count FROM api_keys WHERE revoked_at IS NOT NULL`
      .then(([row]) => {
        if (revoked && revoked.count !== row!.count) cache.clear();
        revoked = { count: row!.count, checkedAt: Date.now() };
      })
      .finally(() => {
        checking = undefined;
      });
    await checking;
  };
  return async (key: string | undefined, now = Date.now()): Promise<AuthResult> => {
    if (!key || ttlMs <= 0) return authenticateApiKey(db, key);
    await forgetRevoked(now);
    const hash = hashApiKey(key);
    const hit = cache.get(hash);
    if (hit && hit.until > now) {
      const expiresAt = hit.result.principal.apiKey?.expiresAt;
      return expiresAt && expiresAt.getTime() <= now ? { ok: false, failure: 'expired' } : hit.result;
    }
    cache.delete(hash);
    const result = await authenticateApiKey(db, key, new Date(now));
    // Only accepted keys are kept: refusals of made-up keys must not fill memory.
    if (result.ok) {
      if (cache.size >= maxEntries) cache.delete(cache.keys().next().value!);
      cache.set(hash, { result, until: now + ttlMs });
    }
    return result;
  };
}
