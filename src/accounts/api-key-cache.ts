// API keys are checked on every request: a few seconds' cache saves the database read per call. Any change of a key's
// scopes, policy, expiry or revocation empties it within half a second (one read of the change counter per interval,
// not a read per call); an expired key is refused at once (its expiry travels with the cached answer).
import type { PrismaClient } from '../db/prisma.ts';
import { authenticateApiKey, type AuthResult, hashApiKey } from './api-keys.ts';

/** Enough for every key a busy gateway sees in a few seconds; past it the oldest answers go first. */
const maxEntries = 10_000;
/** How often a process looks for key changes while it serves from the cache. */
const changeCheckMs = 500;

export function createApiKeyAuthentication(db: PrismaClient, ttlMs: number) {
  const cache = new Map<string, { result: AuthResult & { ok: true }; until: number }>();
  const reading = new Map<string, Promise<AuthResult>>();
  let changes: { seq: bigint; checkedAt: number } | undefined;
  let checking: Promise<void> | undefined;
  /** The counter moves with every committed change of a key (a trigger): then every cached answer is dropped. */
  const forgetChanged = async (now: number) => {
    if (changes && now - changes.checkedAt < changeCheckMs) return;
    checking ??= db.apiKeyChanges
      .findUniqueOrThrow({ where: { id: 1 } })
      .then(({ seq }) => {
        if (changes && changes.seq !== seq) cache.clear();
        changes = { seq, checkedAt: Date.now() };
      })
      .finally(() => {
        checking = undefined;
      });
    await checking;
  };
  return async (key: string | undefined, now = Date.now()): Promise<AuthResult> => {
    if (!key || ttlMs <= 0) return authenticateApiKey(db, key);
    await forgetChanged(now);
    const hash = hashApiKey(key);
    const hit = cache.get(hash);
    if (hit && hit.until > now) {
      const expiresAt = hit.result.principal.apiKey?.expiresAt;
      return expiresAt && expiresAt.getTime() <= now ? { ok: false, failure: 'expired' } : hit.result;
    }
    cache.delete(hash);
    // Concurrent calls with a key not cached share one read (a burst of one key's requests is common).
    let read = reading.get(hash);
    if (!read) {
      read = authenticateApiKey(db, key, new Date(now))
        .then((result) => {
          // Only accepted keys are kept: refusals of made-up keys must not fill memory.
          if (result.ok) {
            if (cache.size >= maxEntries) cache.delete(cache.keys().next().value!);
            cache.set(hash, { result, until: now + ttlMs });
          }
          return result;
        })
        .finally(() => reading.delete(hash));
      reading.set(hash, read);
    }
    return read;
  };
}
