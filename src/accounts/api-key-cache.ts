// API keys are checked on every request: a few seconds' cache saves the database read per call. A revoked key is
// refused again within the cache's lifetime; an expired one at once (its expiry travels with the cached answer).
import type { PrismaClient } from '../db/prisma.ts';
import { authenticateApiKey, type AuthResult, hashApiKey } from './api-keys.ts';

/** Enough for every key a busy gateway sees in a few seconds; past it the oldest answers go first. */
const maxEntries = 10_000;

export function createApiKeyAuthentication(db: PrismaClient, ttlMs: number) {
  const cache = new Map<string, { result: AuthResult & { ok: true }; until: number }>();
  return async (key: string | undefined, now = Date.now()): Promise<AuthResult> => {
    if (!key || ttlMs <= 0) return authenticateApiKey(db, key);
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
