// One workflow per generation task (workflow id = task id), in the steps of DESIGN §4:
// admit (early return through update-with-start) → processing → generate and store → settle → notify.
// A failure after admission releases the whole reservation; that compensation runs even when cancelled.
import {
  ActivityFailure, allHandlersFinished, ApplicationFailure, CancellationScope, condition, defineQuery, defineUpdate,
  proxyActivities, proxyLocalActivities, setHandler, TimeoutFailure,
} from '@temporalio/workflow';
import type { AdmitInput, AdmitOutcome, GenerationActivities } from '../activities/generation.activities.ts';
import type { TaskView } from '../src/generation/task-view.ts';

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
const { admitTask } = proxyLocalActivities<GenerationActivities>(fast);
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
  setHandler(stateQuery, () => view);
  setHandler(admitUpdate, async ({ requestHash }) => {
    // A retried POST with the same Idempotency-Key but another body is a different request.
    if (requestHash !== input.requestHash) return { outcome: 'conflict' };
    admission ??= admitTask(input);
    admitted = await admission;
    if (admitted.outcome === 'admitted') view ??= admitted.task;
    return admitted;
  });

  // 1. Admit: the api is answered from the update; the long tail follows.
  await condition(() => admitted !== undefined);
  if (admitted!.outcome !== 'admitted') {
    await condition(allHandlersFinished);
    return null;
  }

  // The model's timeout bounds the whole call, retries included.
  const { generateOutputs } = proxyActivities<GenerationActivities>({
    startToCloseTimeout: `${input.timeoutSeconds} seconds`,
    scheduleToCloseTimeout: `${input.timeoutSeconds} seconds`,
    heartbeatTimeout: '10 seconds',
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
  });
  try {
    // 2–4. Run, store, settle.
    view = await markProcessing(input.taskId);
    const produced = await generateOutputs({ taskId: input.taskId, modelId: input.modelId, request: input.request });
    view = await settleTask({ taskId: input.taskId, modelId: input.modelId, ...produced });
  } catch (error) {
    // Compensation: refund the reservation and end `failed`, even if the workflow is being cancelled.
    const message = callerSafeError(error, input.timeoutSeconds);
    view = await CancellationScope.nonCancellable(() => failTask({ taskId: input.taskId, error: message }));
  }
  // 5. Notify: webhook delivery lands here with the webhooks issue.
  await condition(allHandlersFinished);
  return view;
}
