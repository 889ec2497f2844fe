// One call to a provider, timed and counted by outcome, as our adapters classify its failure.
import { InputFetchError } from './fetch-input.ts';
import { ProviderAccountError, ProviderRefusal, ProviderRetryLater } from './types.ts';
import { metrics } from '../metrics/metrics.ts';

export type ProviderOperation = 'run' | 'submit' | 'status' | 'collect' | 'cancel';

function outcomeOf(error: unknown): string {
  if (error instanceof ProviderRefusal || error instanceof InputFetchError) return 'refused';
  if (error instanceof ProviderAccountError) return 'account';
  if (error instanceof ProviderRetryLater) return 'retry_later';
  return 'error';
}

/** Runs `call`, recording its duration and outcome; an upstream 401/402/403 is also counted for the operator. */
export async function measuredProviderCall<T>(
  provider: string,
  operation: ProviderOperation,
  call: () => Promise<T>,
): Promise<T> {
  const stop = metrics.providerDuration.startTimer();
  let outcome = 'ok';
  try {
    return await call();
  } catch (error) {
    outcome = outcomeOf(error);
    if (error instanceof ProviderAccountError)
      metrics.providerOperatorFailures.inc({ provider, status: String(error.status) });
    throw error;
  } finally {
    const labels = { provider, operation, outcome };
    stop(labels);
    metrics.providerCalls.inc(labels);
  }
}
