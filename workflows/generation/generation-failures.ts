// What a failed generation tells its caller. Only what our own code says about a failure reaches them: a provider's
// or the runtime's message may carry internals (an upstream's error body, a stack, an operator's account).
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';
import { admissionFailedError, type GenerationInput } from '../contracts/generation.types.ts';
import { isQueueTimeout } from './generation-routes.ts';

const failureType = (cause: unknown) => (cause instanceof ApplicationFailure ? cause.type : undefined);

/** Only running or waiting for the model counts against its timeout (collecting outputs has its own limit). */
function isModelTimeout(error: unknown): boolean {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  const modelTimedOut =
    cause instanceof TimeoutFailure &&
    error instanceof ActivityFailure &&
    ['generateOutputs', 'checkUpstreamJob'].includes(error.activityType);
  return modelTimedOut || failureType(cause) === 'ModelTimeout';
}

/** Only what our own code says about a failure reaches the caller; anything else gets a generic sentence. */
export function callerSafeError(error: unknown, { timeoutSeconds, queueTimeoutSeconds }: GenerationInput): string {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  const type = failureType(cause);
  if (cause instanceof ApplicationFailure && ['ProviderRefusal', 'RouteUnavailable'].includes(type ?? ''))
    return cause.message;
  // The gateway's own account with the provider was refused: nothing about the caller's request.
  if (type === 'ProviderUnavailable')
    return 'The model is not available right now: its provider refused this gateway. You have not been charged.';
  if (type === 'AdmissionFailed') return admissionFailedError;
  if (cause instanceof ApplicationFailure && type === 'PaymentNotSettled')
    return `The x402 payment could not be settled: ${cause.message}. The outputs were discarded and nothing was charged.`;
  if (error instanceof ActivityFailure && error.activityType === 'settlePayment')
    return 'The x402 payment could not be settled in time: the outputs were discarded and nothing was charged.';
  if (isQueueTimeout(error, { queueTimeoutSeconds }))
    return `The model could not start within ${queueTimeoutSeconds} seconds: the gateway is busy. You have not been charged.`;
  if (isModelTimeout(error)) return `The model did not finish within ${timeoutSeconds} seconds.`;
  return 'The generation failed at the provider. You have not been charged.';
}
