// How every upstream's HTTP answers are classified: transient (with the delay it asked for, within bounds) or a refusal.
import { describe, expect, it } from 'vitest';
import { classifyUpstreamHttpError } from '../../src/providers/upstream-errors.ts';
import { ProviderAccountError, ProviderRefusal, ProviderRetryLater } from '../../src/providers/types.ts';

const original = new Error('the SDK error');
const classify = (status: number, retryAfter?: string) => classifyUpstreamHttpError({ status, retryAfter }, original);

describe('classifyUpstreamHttpError', () => {
  it.each([429, 408, 409, 500, 503])('keeps the SDK error of a transient %i without Retry-After', (status) => {
    expect(classify(status)).toBe(original);
  });

  it.each([
    ['seconds', '30', 30_000],
    ['an HTTP date', new Date(Date.now() + 120_000).toUTCString(), 120_000],
    ['a delay past five minutes, capped', '86400', 300_000],
  ])('waits as Retry-After asks in %s', (_, retryAfter, expectedMs) => {
    const error = classify(429, retryAfter);
    expect(error).toBeInstanceOf(ProviderRetryLater);
    expect((error as ProviderRetryLater).delayMs).toBeGreaterThan(expectedMs - 2_000);
    expect((error as ProviderRetryLater).delayMs).toBeLessThanOrEqual(expectedMs);
  });

  it.each([
    ['zero', '0'],
    ['a date in the past', 'Wed, 21 Oct 2015 07:28:00 GMT'],
    ['garbage', 'soon'],
    ['a number too large for a delay', '9'.repeat(400)],
  ])('falls back to the SDK error for %s', (_, retryAfter) => {
    expect(classify(503, retryAfter)).toBe(original);
  });

  it.each([401, 402, 403])("%i is about the gateway's own account, not the caller's request", (status) => {
    const error = classifyUpstreamHttpError({ status, detail: 'invalid key' }, original);
    expect(error).toBeInstanceOf(ProviderAccountError);
    expect(error.message).toBe(`The provider refused the gateway's credentials (HTTP ${status}): invalid key`);
  });

  it.each([400, 404, 422])('refuses %i, naming the status and the reason', (status) => {
    const error = classifyUpstreamHttpError({ status, detail: 'bad prompt' }, original);
    expect(error).toBeInstanceOf(ProviderRefusal);
    expect(error.message).toBe(`The provider rejected the request (HTTP ${status}): bad prompt`);
  });
});
