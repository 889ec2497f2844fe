// fal's ED25519 callback signatures (request id, user id, timestamp and body hash, checked against fal's JWKS).
// A callback more than five minutes off our clock is refused, so a captured one cannot be replayed later.
import { createHash, createPublicKey, type KeyObject, verify } from 'node:crypto';
import { callbackHeader, type UpstreamCallback } from '../types.ts';

const maxSkewSeconds = 300;
// fal asks verifiers to cache its keys, for at most a day.
const keysTtlMs = 24 * 60 * 60 * 1000;

export const falJwksUrl = 'https://rest.alpha.fal.ai/.well-known/jwks.json';

/**
 * Returns the request id of a genuine, fresh callback, else undefined. With `userId`, only callbacks for that fal
 * account count: fal signs every customer's callbacks with the same keys.
 */
export function createFalCallbackVerifier(jwksUrl: string, userId?: string, now: () => number = Date.now) {
  // One fetch at a time, shared; a failure is remembered briefly so that unauthenticated requests cannot make
  // us fetch again and again; after fal rotates its keys, an unknown signature refreshes them (at most every 10 min).
  let keys: { value: Promise<KeyObject[]>; at: number; failed: boolean } | undefined;
  const fetchKeys = async (): Promise<KeyObject[]> => {
    const response = await fetch(jwksUrl, { signal: AbortSignal.timeout(10_000) });
    if (!response.ok) throw new Error(`fal's JWKS answered HTTP ${response.status}`);
    const { keys: listed } = (await response.json()) as { keys: { kty?: string; crv?: string; x?: string }[] };
    return listed
      .filter((key) => key.kty === 'OKP' && key.crv === 'Ed25519' && key.x)
      .map((key) => createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: key.x! }, format: 'jwk' }));
  };
  const publicKeys = (refresh: boolean): Promise<KeyObject[]> => {
    const age = keys ? now() - keys.at : Infinity;
    const stale = !keys || age > keysTtlMs || (keys.failed && age > 30_000) || (refresh && age > 10 * 60_000);
    if (stale) {
      const entry = { value: fetchKeys(), at: now(), failed: false };
      entry.value.catch(() => {
        entry.failed = true;
      });
      keys = entry;
    }
    return keys!.value;
  };

  return async (callback: UpstreamCallback): Promise<string | undefined> => {
    const requestId = callbackHeader(callback, 'x-fal-webhook-request-id');
    const signedUserId = callbackHeader(callback, 'x-fal-webhook-user-id');
    const timestamp = callbackHeader(callback, 'x-fal-webhook-timestamp');
    const signatureHex = callbackHeader(callback, 'x-fal-webhook-signature');
    if (!requestId || !signedUserId || !timestamp || !signatureHex || !/^\d+$/.test(timestamp)) return undefined;
    if (userId && signedUserId !== userId) return undefined;
    if (Math.abs(now() / 1000 - Number(timestamp)) > maxSkewSeconds) return undefined;
    const signature = Buffer.from(signatureHex, 'hex');
    if (signature.length !== 64) return undefined;
    const bodyHash = createHash('sha256').update(callback.body).digest('hex');
    const message = Buffer.from([requestId, signedUserId, timestamp, bodyHash].join('\n'), 'utf8');
    const signedBy = (candidates: KeyObject[]) => candidates.some((key) => verify(null, message, key, signature));
    return signedBy(await publicKeys(false)) || signedBy(await publicKeys(true)) ? requestId : undefined;
  };
}
