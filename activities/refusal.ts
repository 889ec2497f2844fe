import { ApplicationFailure } from '@temporalio/activity';

/** A permanent failure whose message the caller may read; the workflow refunds and fails the task. */
export const refusal = (message: string) => ApplicationFailure.nonRetryable(message, 'ProviderRefusal');

/**
 * A provider route that cannot run here (its provider not configured, the route gone from the catalog): not the
 * caller's doing, so the workflow tries the model's next route; with none left the task fails with this message.
 */
export const routeUnavailable = (message: string) => ApplicationFailure.nonRetryable(message, 'RouteUnavailable');
