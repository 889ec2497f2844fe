// The API side of the rate limits: a call counted against its account, and the answer's headers. Headers follow
// the IETF draft (draft-ietf-httpapi-ratelimit-headers-06, as express-rate-limit's "draft-6"): RateLimit-Limit,
// -Remaining, -Reset (seconds) and RateLimit-Policy, on every counted response; a refusal adds Retry-After.
import type { RateLimitBucket, RateLimiter, RateLimitState } from '../accounts/rate-limiter.ts';
import { trialNetwork } from './client-address.ts';
import { ApiError } from './errors.ts';

export const rateLimitHeaderDocs = {
  'RateLimit-Limit': {
    description: 'Requests of this kind the account may send per window',
    schema: { type: 'integer' as const },
  },
  'RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer' as const } },
  'RateLimit-Reset': { description: 'Seconds until the window ends', schema: { type: 'integer' as const } },
  'RateLimit-Policy': { description: 'The limit and its window, e.g. `60;w=60`', schema: { type: 'string' as const } },
  'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer' as const } },
};

function headers(state: RateLimitState): Record<string, string> {
  return {
    'RateLimit-Limit': String(state.limit),
    'RateLimit-Remaining': String(state.remaining),
    'RateLimit-Reset': String(state.resetSeconds),
    'RateLimit-Policy': `${state.limit};w=${state.windowSeconds}`,
  };
}

const what: Record<RateLimitBucket, string> = {
  admissions: 'generations',
  depositClaims: 'deposit claims',
  reads: 'requests',
};

/** Who a call is counted against: its account, or, without a key, the address it came from (as free). */
export type RateLimitedCaller = { account: { id: string; tier: string | null }; label: 'account' | 'address' };

/** Per IPv6 /48, as trial credits are: one holder of a /48 could otherwise spread its calls over 65,536 /64s. */
export const keylessCaller = (address: string): RateLimitedCaller => ({
  account: { id: `address:${trialNetwork(address)}`, tier: null },
  label: 'address',
});

/**
 * Counts the request against its caller, its state written into `answerHeaders` (the answer's, whatever it is); a
 * refusal is 429 `rate_limited` with Retry-After.
 */
export async function enforceRateLimit(
  limiter: RateLimiter,
  bucket: RateLimitBucket,
  caller: RateLimitedCaller,
  answerHeaders: Record<string, string>,
): Promise<void> {
  const state = await limiter.take(bucket, caller.account);
  if (state)
    answerRateLimit(
      state,
      `${what[bucket]} every ${state.windowSeconds} seconds for this ${caller.label}`,
      answerHeaders,
    );
}

/**
 * A generation of a key: counted against its own `rate_limit_per_minute` and every one of the keys above it, nearest
 * first, so sub-keys share their maker's limit rather than each having it anew.
 */
export async function enforceKeyRateLimit(
  limiter: RateLimiter,
  key: { id: string; rateLimits: readonly { keyId: string; perMinute: number }[] },
  answerHeaders: Record<string, string>,
): Promise<void> {
  for (const { keyId, perMinute } of key.rateLimits) {
    const whose = keyId === key.id ? 'this API key' : 'a key above this API key';
    answerRateLimit(await limiter.takeKey(keyId, perMinute), `generations a minute for ${whose}`, answerHeaders);
  }
}

function answerRateLimit(state: RateLimitState, limitText: string, answerHeaders: Record<string, string>): void {
  Object.assign(answerHeaders, headers(state));
  if (state.allowed) return;
  throw new ApiError(
    'rate_limited',
    `Rate limit reached: at most ${state.limit} ${limitText}; try again in ${state.resetSeconds} s.`,
    {},
    { 'Retry-After': String(state.resetSeconds) },
  );
}
