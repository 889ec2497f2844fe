import { ApplicationFailure } from '@temporalio/activity';

/** A permanent failure whose message the caller may read; the workflow refunds and fails the task. */
export const refusal = (message: string) => ApplicationFailure.nonRetryable(message, 'ProviderRefusal');
