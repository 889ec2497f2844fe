// Temporal not answering (down, unreachable, overloaded, or past our deadline) is an outage, not a bug: the caller is
// told to retry (503), never shown an internal error.
import { isGrpcServiceError, ServiceError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';

// gRPC status codes: DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, UNAVAILABLE.
const outageCodes = new Set([4, 8, 14]);

export function isTemporalUnreachable(error: unknown): boolean {
  if (error instanceof WorkflowUpdateRPCTimeoutOrCancelledError) return true;
  const grpc = error instanceof ServiceError ? error.cause : error;
  return isGrpcServiceError(grpc) && outageCodes.has(grpc.code);
}
