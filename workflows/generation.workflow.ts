// One workflow per generation task (workflow id = task id), in the steps of DESIGN §4:
// admit (early return through update-with-start) → processing → generate and store → settle → notify.
// Whatever goes wrong after the reservation (a failure, a timeout, a cancellation, even during admission)
// releases it: the compensation runs in a non-cancellable scope. Provider calls run on the provider's own task
// queue; an upstream that queues work is waited for here, on durable timers woken early by its callback.
import {
  ActivityCancellationType,
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  condition,
  defineQuery,
  defineSignal,
  defineUpdate,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  TimeoutFailure,
  workflowInfo,
} from '@temporalio/workflow';
import type { AdmitInput, TaskAdmission, GenerationActivities } from '../activities/generation.activities.ts';
import type { GeneratedOutputs, JobRef, ProviderActivities, SubmittedJob } from '../activities/provider.activities.ts';
import type { TaskView } from '../src/generation/task-view.ts';
import { providerSlugOf, providerTaskQueue } from './task-queues.ts';
import { notify } from './webhook-notify.ts';

export interface GenerationInput extends AdmitInput {
  modelId: string;
  requestHash: string;
  timeoutSeconds: number;
}

export type AdmitResult = TaskAdmission | { outcome: 'conflict' };

export const admitUpdate = defineUpdate<AdmitResult, [{ requestHash: string }]>('admit');
export const stateQuery = defineQuery<TaskView | null>('state');
/** Sent by the api when an upstream's verified callback says a job ended: the workflow checks it at once. */
export const upstreamCallbackSignal = defineSignal<[{ jobId: string }]>('upstreamCallback');

// Database steps take milliseconds; a short timeout hands them to another worker soon after one dies.
const fast = {
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
} as const;
// Admission keeps a caller waiting: give up after 30 s rather than hold the POST forever.
const { admitTask } = proxyLocalActivities<GenerationActivities>({ ...fast, scheduleToCloseTimeout: '30 seconds' });
const { markProcessing, settleTask, failTask } = proxyActivities<GenerationActivities>(fast);

/** Only what our own code says about a failure reaches the caller; anything else gets a generic sentence. */
function callerSafeError(error: unknown, timeoutSeconds: number): string {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure && cause.type === 'ProviderRefusal') return cause.message;
  // Only running or waiting for the model counts against its timeout (collecting outputs has its own limit).
  const modelTimedOut =
    cause instanceof TimeoutFailure &&
    error instanceof ActivityFailure &&
    ['generateOutputs', 'checkUpstreamJob'].includes(error.activityType);
  if (modelTimedOut || (cause instanceof ApplicationFailure && cause.type === 'ModelTimeout'))
    return `The model did not finish within ${timeoutSeconds} seconds.`;
  return 'The generation failed at the provider. You have not been charged.';
}

export async function generationWorkflow(input: GenerationInput): Promise<TaskView | null> {
  let view: TaskView | null = null;
  let admission: Promise<TaskAdmission> | undefined;
  let admitted: TaskAdmission | undefined;
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

  // Only the current job's callback wakes the wait; one may beat the job id itself (kept, a few at most).
  const earlyCallbacks = new Set<string>();
  let currentJobId: string | undefined;
  let callbackArrived = false;
  setHandler(upstreamCallbackSignal, ({ jobId }) => {
    if (currentJobId === undefined) {
      if (earlyCallbacks.size < 8) earlyCallbacks.add(jobId);
    } else if (jobId === currentJobId) {
      callbackArrived = true;
    }
  });

  // Provider calls go to the provider's task queue. The model's timeout bounds the call (or, for an upstream job,
  // submission and waiting together), retries included; heartbeats reveal a dead worker sooner.
  const taskQueue = providerTaskQueue(workflowInfo().taskQueue, providerSlugOf(input.modelId));
  const { generateOutputs } = proxyActivities<ProviderActivities>({
    taskQueue,
    startToCloseTimeout: `${input.timeoutSeconds} seconds`,
    scheduleToCloseTimeout: `${input.timeoutSeconds} seconds`,
    heartbeatTimeout: '10 seconds',
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
    // A cancel waits for the call to stop: a job it submitted meanwhile comes back, and is cancelled upstream.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  });
  const upstreamRetry = { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' } as const;
  // Collecting downloads the outputs: a job that succeeded gets its own ten minutes, past the model's timeout.
  const { collectUpstreamJob } = proxyActivities<ProviderActivities>({
    taskQueue,
    startToCloseTimeout: '5 minutes',
    scheduleToCloseTimeout: '10 minutes',
    heartbeatTimeout: '30 seconds',
    retry: upstreamRetry,
  });
  const { cancelUpstreamJob } = proxyActivities<ProviderActivities>({
    taskQueue,
    startToCloseTimeout: '1 minute',
    retry: { ...upstreamRetry, maximumAttempts: 3 },
  });
  let job: JobRef | undefined;

  /** Waits for the job: checks after each poll interval (growing by half up to the maximum) or at a callback. */
  const awaitUpstreamJob = async (submitted: SubmittedJob, deadline: number): Promise<GeneratedOutputs> => {
    const ref: JobRef = { taskId: input.taskId, modelId: input.modelId, jobId: submitted.jobId };
    currentJobId = submitted.jobId;
    callbackArrived = earlyCallbacks.has(submitted.jobId);
    let interval = submitted.pollIntervalMs;
    for (;;) {
      const remaining = deadline - Date.now();
      if (remaining <= 0)
        throw ApplicationFailure.nonRetryable('the upstream job outlived the model timeout', 'ModelTimeout');
      const called = await condition(() => callbackArrived, Math.min(interval, remaining));
      callbackArrived = false;
      const { checkUpstreamJob } = proxyActivities<ProviderActivities>({
        taskQueue,
        startToCloseTimeout: '2 minutes',
        scheduleToCloseTimeout: Math.max(deadline - Date.now(), 1_000),
        retry: upstreamRetry,
      });
      if ((await checkUpstreamJob(ref)).done) break;
      if (!called) interval = Math.min(Math.round(interval * 1.5), submitted.pollMaxIntervalMs);
    }
    return collectUpstreamJob(ref);
  };

  try {
    // 1. Admit: the api is answered from the update; the long tail follows.
    await condition(() => admitted !== undefined || admissionFailed);
    if (admissionFailed) throw new Error('admission failed');
    if (admitted?.outcome !== 'admitted') {
      await condition(allHandlersFinished);
      // Ends failed, not completed, so the same Idempotency-Key may start again once the balance covers it.
      throw ApplicationFailure.nonRetryable(
        'Admission refused: the available balance does not cover the cost.',
        'AdmissionRefused',
      );
    }
    // 2–4. Run, store, settle. Settlement is not cancellable: a cancel arriving then must not race the charge.
    view = await markProcessing(input.taskId);
    const deadline = Date.now() + input.timeoutSeconds * 1000;
    const started = await generateOutputs({ taskId: input.taskId, modelId: input.modelId, request: input.request });
    if ('job' in started) job = { taskId: input.taskId, modelId: input.modelId, jobId: started.job.jobId };
    // Cancelled while the call ran (and it finished anyway): its result is not wanted; a job is cancelled below.
    if (CancellationScope.current().consideredCancelled) throw new CancelledFailure('The task was cancelled.');
    const produced = 'job' in started ? await awaitUpstreamJob(started.job, deadline) : started;
    job = undefined; // collected: nothing left upstream to cancel
    view = await CancellationScope.nonCancellable(() =>
      settleTask({ taskId: input.taskId, modelId: input.modelId, ...produced }),
    );
  } catch (error) {
    if (error instanceof ApplicationFailure && error.type === 'AdmissionRefused') throw error;
    // Compensation: refund whatever admission reserved and end `failed`, even if the workflow is being cancelled.
    const message = callerSafeError(error, input.timeoutSeconds);
    const abandoned = job;
    view = await CancellationScope.nonCancellable(async () => {
      // An upstream job nobody will collect is cancelled, so it stops costing (best effort: it may have ended).
      if (abandoned) await cancelUpstreamJob(abandoned).catch(() => undefined);
      return failTask({ taskId: input.taskId, error: message });
    });
    if (admitted?.outcome !== 'admitted') throw error;
  }
  // 5. Notify: deliveries run in workflows of their own, so this one closes now and they cannot touch the task.
  // patched: histories recorded before webhooks replay without this step.
  if ((view?.status === 'completed' || view?.status === 'failed') && patched('webhooks')) {
    await notify({
      event: `generation.${view.status}`,
      subject: input.taskId,
      accountId: input.accountId,
      taskId: input.taskId,
      data: view,
    });
  }
  await condition(allHandlersFinished);
  return view;
}
