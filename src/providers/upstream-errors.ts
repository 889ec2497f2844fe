// One rule for every upstream's HTTP answers: 429, 408, 409 and 5xx are transient (retried, after Retry-After
// when given); 401, 402 and 403 are about our own account with the upstream (the operator's to fix); any other
// status is about the request itself. Both fail the task with a refund.
import { parseRetryAfter } from '../net/retry-after.ts';
import { ProviderAccountError, ProviderRefusal, ProviderRetryLater } from './types.ts';

export interface UpstreamHttpError {
  status: number;
  /** The Retry-After header, when the upstream sent one. */
  retryAfter?: string | null;
  /** A caller-readable reason the upstream gave, appended to the refusal. */
  detail?: string;
}

/** An upstream's Retry-After is honoured up to this: a refund waits on the cancel of an uncollected job. */
const maxRetryAfterMs = 5 * 60_000;

const transient = (status: number) => status === 429 || status === 408 || status === 409 || status >= 500;
const ourAccount = (status: number) => status === 401 || status === 402 || status === 403;

/** `original` is what a transient error without Retry-After rethrows, so retries keep the SDK's own error. */
export function classifyUpstreamHttpError(error: UpstreamHttpError, original: Error): Error {
  if (transient(error.status)) {
    const delayMs = parseRetryAfter(error.retryAfter);
    if (!delayMs || !Number.isFinite(delayMs)) return original;
    return new ProviderRetryLater(`the provider answered ${error.status}`, Math.min(delayMs, maxRetryAfterMs));
  }
  const detail = error.detail ? `: ${error.detail.slice(0, 300)}` : '.';
  if (ourAccount(error.status))
    return new ProviderAccountError(
      `The provider refused the gateway's credentials (HTTP ${error.status})${detail}`,
      error.status,
    );
  return new ProviderRefusal(`The provider rejected the request (HTTP ${error.status})${detail}`);
}
