// Whether a store's failure is an outage (it did not answer: a refused or reset connection, a timeout, its 5xx)
// rather than a refusal of the request, which the same request would meet again.
const transientCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

export function isStoreOutage(error: unknown): boolean {
  const failure = error as { code?: string; name?: string; $metadata?: { httpStatusCode?: number }; cause?: unknown };
  if ((failure.$metadata?.httpStatusCode ?? 0) >= 500) return true;
  if (failure.name === 'TimeoutError' || transientCodes.has(failure.code ?? '')) return true;
  return failure.cause !== undefined && failure.cause !== error && isStoreOutage(failure.cause);
}
