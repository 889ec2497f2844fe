// What a failed generation tells its caller about a provider call that timed out, with and without a queue bound.
import { ActivityFailure, RetryState, TimeoutFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import type { GenerationInput } from '../../workflows/contracts/generation.types.ts';
import { callerSafeError } from '../../workflows/generation/generation-failures.ts';

const timedOut = (timeoutType: 'SCHEDULE_TO_START' | 'SCHEDULE_TO_CLOSE' | 'START_TO_CLOSE') =>
  new ActivityFailure(
    'activity timed out',
    'generateOutputs',
    '2',
    RetryState.TIMEOUT,
    undefined,
    new TimeoutFailure(`activity ${timeoutType} timeout`, undefined, timeoutType),
  );
const task = (queueTimeoutSeconds?: number) => ({ timeoutSeconds: 3, queueTimeoutSeconds }) as GenerationInput;

describe('a provider call that timed out', () => {
  it('waiting for a slot past the queue bound: the gateway was busy', () => {
    expect(callerSafeError(timedOut('SCHEDULE_TO_START'), task(60))).toBe(
      'The model could not start within 60 seconds: the gateway is busy. You have not been charged.',
    );
  });

  it('waiting for a slot without a queue bound: the wait was the model’s time (never "within undefined seconds")', () => {
    // The server bounds the wait by the schedule-to-close timeout then, and reports it as schedule-to-start.
    expect(callerSafeError(timedOut('SCHEDULE_TO_START'), task())).toBe('The model did not finish within 3 seconds.');
  });

  it('running past the model’s timeout, with or without a queue bound', () => {
    for (const type of ['SCHEDULE_TO_CLOSE', 'START_TO_CLOSE'] as const) {
      expect(callerSafeError(timedOut(type), task())).toBe('The model did not finish within 3 seconds.');
      expect(callerSafeError(timedOut(type), task(60))).toBe('The model did not finish within 3 seconds.');
    }
  });
});
