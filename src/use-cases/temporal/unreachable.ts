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

// FAILED_PRECONDITION: the server takes no update while the workflow's task is failing and being retried (a worker
// died or crashed mid-task); it passes once a worker completes the task, so the caller may retry.
export function isWorkflowBusy(error: unknown): boolean {
  const grpc = error instanceof ServiceError ? error.cause : error;
  return isGrpcServiceError(grpc) && grpc.code === 9;
}
