// One workflow per generation task (workflow id = task id), in the steps of DESIGN §4:
// admit (early return through update-with-start) → processing → generate and store → settle → notify.
// Whatever goes wrong after the reservation (a failure, a timeout, a cancellation, even during admission)
// releases it: the compensation runs in a non-cancellable scope.
import {
  ActivityFailure, allHandlersFinished, ApplicationFailure, CancellationScope, condition, defineQuery, defineUpdate,
  patched, proxyActivities, proxyLocalActivities, setHandler, TimeoutFailure,
} from '@temporalio/workflow';
import type { AdmitInput, AdmitOutcome, GenerationActivities } from '../activities/generation.activities.ts';
import type { TaskView } from '../src/generation/task-view.ts';
import { notify } from './webhook-notify.ts';

export interface GenerationInput extends AdmitInput {
  modelId: string;
  requestHash: string;
  timeoutSeconds: number;
}

export type AdmitResult = AdmitOutcome | { outcome: 'conflict' };

export const admitUpdate = defineUpdate<AdmitResult, [{ requestHash: string }]>('admit');
export const stateQuery = defineQuery<TaskView | null>('state');

// Database steps take milliseconds; a short timeout hands them to another worker soon after one dies.
const fast = { startToCloseTimeout: '10 seconds', retry: { initialInterval: '1 second', maximumInterval: '30 seconds' } } as const;
// Admission keeps a caller waiting: give up after 30 s rather than hold the POST forever.
const { admitTask } = proxyLocalActivities<GenerationActivities>({ ...fast, scheduleToCloseTimeout: '30 seconds' });
const { markProcessing, settleTask, failTask } = proxyActivities<GenerationActivities>(fast);

/** Only what our own code says about a failure reaches the caller; anything else gets a generic sentence. */
function callerSafeError(error: unknown, timeoutSeconds: number): string {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure && cause.type === 'ProviderRefusal') return cause.message;
  if (cause instanceof TimeoutFailure) return `The model did not finish within ${timeoutSeconds} seconds.`;
  return 'The generation failed at the provider. You have not been charged.';
}

export async function generationWorkflow(input: GenerationInput): Promise<TaskView | null> {
  let view: TaskView | null = null;
  let admission: Promise<AdmitOutcome> | undefined;
  let admitted: AdmitOutcome | undefined;
  let admissionFailed = false;
  setHandler(stateQuery, () => view);
  setHandler(admitUpdate, async ({ requestHash }) => {
    // A retried POST with the same Idempotency-Key but another body is a different request.
    if (requestHash !== input.requestHash) return { outcome: 'conflict' };
    admission ??= admitTask(input);
    try {
      admitted = await admission;
    } catch (error) {
      admissionFailed = true;
      throw ApplicationFailure.nonRetryable('The generation could not be admitted; try again.', 'AdmissionFailed');
    }
    if (admitted.outcome === 'admitted') view ??= admitted.task;
    return admitted;
  });

  const { generateOutputs } = proxyActivities<GenerationActivities>({
    // The model's timeout bounds the whole call, retries included; heartbeats reveal a dead worker sooner.
    startToCloseTimeout: `${input.timeoutSeconds} seconds`,
    scheduleToCloseTimeout: `${input.timeoutSeconds} seconds`,
    heartbeatTimeout: '10 seconds',
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
  });
  try {
    // 1. Admit: the api is answered from the update; the long tail follows.
    await condition(() => admitted !== undefined || admissionFailed);
    if (admissionFailed) throw new Error('admission failed');
    if (admitted!.outcome !== 'admitted') {
      await condition(allHandlersFinished);
      // Ends failed, not completed, so the same Idempotency-Key may start again once the balance covers it.
      throw ApplicationFailure.nonRetryable('Admission refused: the available balance does not cover the cost.', 'AdmissionRefused');
    }
    // 2–4. Run, store, settle. Settlement is not cancellable: a cancel arriving then must not race the charge.
    view = await markProcessing(input.taskId);
    const produced = await generateOutputs({ taskId: input.taskId, modelId: input.modelId, request: input.request });
    view = await CancellationScope.nonCancellable(() => settleTask({ taskId: input.taskId, modelId: input.modelId, ...produced }));
  } catch (error) {
    if (error instanceof ApplicationFailure && error.type === 'AdmissionRefused') throw error;
    // Compensation: refund whatever admission reserved and end `failed`, even if the workflow is being cancelled.
    const message = callerSafeError(error, input.timeoutSeconds);
    view = await CancellationScope.nonCancellable(() => failTask({ taskId: input.taskId, error: message }));
    if (admitted?.outcome !== 'admitted') throw error;
  }
  // 5. Notify: deliveries run in workflows of their own, so this one closes now and they cannot touch the task.
  // patched: histories recorded before webhooks replay without this step.
  if ((view?.status === 'completed' || view?.status === 'failed') && patched('webhooks')) {
    await notify({ event: `generation.${view.status}`, subject: input.taskId, accountId: input.accountId, taskId: input.taskId, data: view });
  }
  await condition(allHandlersFinished);
  return view;
}
