// One workflow per generation task (workflow id = task id). Whatever goes wrong once admission may have reserved
// funds (a failure, a timeout, a cancellation, even during admission) releases them and fails the task, in a
// non-cancellable scope: a cancelled workflow must still refund.
import {
  ActivityCancellationType,
  ActivityFailure,
  type ActivityOptions,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  condition,
  log,
  type LocalActivityOptions,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  TimeoutFailure,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { GenerationActivities, TaskAdmission } from '../activities/generation.activities.ts';
import type { GeneratedOutputs, ProviderActivities } from '../activities/provider.activities.ts';
import type { TaskView } from '../src/generations/task-view.ts';
import { genProvider, genStatus, type GenStatus } from './search-attributes.ts';
import { providerSlugOf, providerTaskQueue } from './task-queues.ts';
import { type UpstreamJob, upstreamJobOf } from './upstream-job.ts';
import { notify } from './webhook-notify.ts';
import {
  admissionFailedError,
  admitUpdate,
  type AdmitUpdateResult,
  cancelledError,
  type GenerationInput,
  stateQuery,
} from './generation.types.ts';

// Database steps take milliseconds; a short timeout hands them to another worker soon after one dies. An hour of
// retries outlasts any outage worth waiting for; past it the workflow fails rather than loop.
const fast = {
  startToCloseTimeout: '10 seconds',
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
} satisfies ActivityOptions;
// The refund outlasts a longer outage: a day, then it is an operator's.
const compensation = { ...fast, scheduleToCloseTimeout: '1 day' } satisfies ActivityOptions;
// Admission keeps a caller waiting: 4 attempts of at most 5 s (< 30 s with backoff), then the POST answers. Bounded
// by a count: the SDK drops a local activity's schedule-to-close that expires between two local retries.
const admit = {
  startToCloseTimeout: '5 seconds',
  scheduleToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '4 seconds', maximumAttempts: 4 },
} satisfies LocalActivityOptions;
// The model's timeout bounds the call's running time, retries included (each attempt's start-to-close, carried across
// attempts by activities/model-time.ts); the wait for a slot is bounded apart. Heartbeats reveal a dead worker sooner.
const provider = {
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
  // A cancel waits for the call to stop: a job it submitted meanwhile comes back, and is cancelled upstream.
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
} satisfies ActivityOptions;

// Settling an x402 payment waits for a transaction; its attempts last until the authorization expires (set per run).
const settlement = {
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute', nonRetryableErrorTypes: ['PaymentNotSettled'] },
} satisfies ActivityOptions;

// The same database steps as local activities: no task-queue round trip each. Bounded by attempts (see admit): with
// the 30 s ceiling, about an hour of retries, as `fast`.
const local = {
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 120 },
} satisfies LocalActivityOptions;

const { admitTask } = proxyLocalActivities<GenerationActivities>(admit);
const { findQueuedTask, markProcessing, settleTask } = proxyActivities<GenerationActivities>(fast);
const localSteps = proxyLocalActivities<GenerationActivities>(local);
/** Marking processing and settling: local activities from this patch on; earlier histories replay remote ones. */
const databaseSteps = () => (patched('local-database-steps') ? localSteps : { markProcessing, settleTask });
const { failTask } = proxyActivities<GenerationActivities>(compensation);
// Once a payment has moved, recording the task's completion may wait out a long outage, as a refund does.
const { settleTask: completePaidTask } = proxyActivities<GenerationActivities>(compensation);

type Refusal = Exclude<TaskAdmission, { outcome: 'admitted' }>;

// Far longer than an admit update takes (the api gives up on it within a minute): past it, the update was lost.
const admissionTimeout = '5 minutes';

/** How far admission got; the reservation is shared by every update a retried POST sends. */
type Admission =
  | { state: 'pending' }
  | { state: 'reserving'; decided: Promise<Admission> }
  | { state: 'admitted'; task: TaskView }
  | { state: 'refused'; refusal: Refusal }
  | { state: 'failed' };

async function admissionOf(reservation: Promise<TaskAdmission>): Promise<Admission> {
  try {
    const admitted = await reservation;
    return admitted.outcome === 'admitted'
      ? { state: 'admitted', task: admitted.task }
      : { state: 'refused', refusal: admitted };
  } catch {
    return { state: 'failed' };
  }
}

/** A row queued by an admission whose update never reached this workflow: adopted as if admitted; none, failed. */
const adoption = async (taskId: string): Promise<TaskAdmission> => {
  const task = await findQueuedTask(taskId);
  if (!task) throw new Error(`no queued task ${taskId}`);
  return { outcome: 'admitted', task };
};

/**
 * Answers the admit update (update-with-start). Returns how far admission got, and `adopt`: for a workflow whose
 * update was lost (Temporal died after the update's local activity committed), it takes over the row, if any.
 */
function handleAdmitUpdate(input: GenerationInput, onAdmitted: (task: TaskView) => void) {
  let admission: Admission = { state: 'pending' };
  const decide = (reservation: Promise<TaskAdmission>) => {
    const decided = admissionOf(reservation).then((outcome) => {
      admission = outcome;
      if (outcome.state === 'admitted') onAdmitted(outcome.task);
      return outcome;
    });
    admission = { state: 'reserving', decided };
  };
  setHandler(admitUpdate, async ({ requestHash }): Promise<AdmitUpdateResult> => {
    // A retried POST with the same Idempotency-Key but another body is a different request.
    if (requestHash !== input.requestHash) return { outcome: 'conflict' };
    // admitTask finds a row committed earlier (a retried POST after a lost update) and reserves nothing more.
    if (admission.state === 'pending') decide(admitTask(input));
    const decided = admission.state === 'reserving' ? await admission.decided : admission;
    switch (decided.state) {
      case 'admitted':
        return { outcome: 'admitted', task: decided.task };
      case 'refused':
        return decided.refusal;
      default:
        throw ApplicationFailure.nonRetryable('The generation could not be admitted; try again.', 'AdmissionFailed');
    }
  });
  return {
    admission: () => admission,
    adopt: () => {
      if (admission.state === 'pending') decide(adoption(input.taskId));
    },
  };
}

/**
 * Waits until the admit update has decided; a refusal ends the workflow once the api has its answer. An update that
 * never comes (lost with Temporal) does not keep it waiting for ever: the row it may have committed is adopted.
 */
async function awaitAdmission({ admission, adopt }: ReturnType<typeof handleAdmitUpdate>): Promise<TaskView> {
  const decided = () => !['pending', 'reserving'].includes(admission().state);
  // patched: histories recorded before this timeout (no timer) replay as they ran.
  if (patched('admission-timeout')) {
    if (!(await condition(decided, admissionTimeout))) adopt();
  }
  await condition(decided);
  // A failure, not an Error: an Error fails only the workflow task, which would then retry for ever.
  const decision = admission();
  if (decision.state === 'failed')
    throw ApplicationFailure.nonRetryable('The task could not be admitted.', 'AdmissionFailed');
  if (decision.state !== 'admitted') {
    await condition(allHandlersFinished);
    // Ends failed, not completed, so the same Idempotency-Key (or payment) may start again once it can be admitted.
    throw ApplicationFailure.nonRetryable('Admission refused: the task was not admitted.', 'AdmissionRefused');
  }
  return decision.task;
}

/**
 * The settlement of an x402 payment, attempted until its authorization has expired (and a little after, to see it
 * expire unspent): after that it can never move, so the task may fail without taking the payer's money.
 */
export function settlementActivities(input: GenerationInput) {
  const validBeforeMs = Number(input.payment?.validBefore ?? 0) * 1000;
  const untilExpiry = Math.min(validBeforeMs - Date.now() + 120_000, 86_400_000);
  return proxyActivities<GenerationActivities>({
    ...settlement,
    scheduleToCloseTimeout: Math.max(untilExpiry, 60_000),
  });
}

/**
 * The provider call of one run, on the provider's own task queue. A fallback route gets what is left of the task's
 * deadline (`timeoutMs`): the model's timeout covers all its routes together, as the caller was told. Waiting for a
 * free slot on the queue is bounded apart (`queueTimeoutSeconds`): a busy gateway does not eat the model's time.
 */
export function providerActivities(input: GenerationInput, taskQueue: string, timeoutMs?: number) {
  const runMs = timeoutMs ?? input.timeoutSeconds * 1000;
  const queueMs = (input.queueTimeoutSeconds ?? 0) * 1000;
  return proxyActivities<ProviderActivities>({
    ...provider,
    taskQueue,
    startToCloseTimeout: runMs,
    ...(queueMs > 0 ? { scheduleToStartTimeout: queueMs } : {}),
    scheduleToCloseTimeout: runMs + queueMs,
  });
}

/**
 * A route failed for a reason that is not the caller's: its provider kept failing (retries spent, timed out),
 * refused the gateway's own account, or cannot run here. A refusal of the caller's input is never tried elsewhere.
 */
function isRouteFailure(error: unknown): boolean {
  if (
    !(error instanceof ActivityFailure) ||
    !['generateOutputs', 'checkUpstreamJob'].includes(error.activityType ?? '')
  )
    return false;
  const cause = error.cause;
  return !(
    cause instanceof ApplicationFailure && ['ProviderRefusal', 'DeterministicFailure'].includes(cause.type ?? '')
  );
}

const isQueueTimeout = (error: unknown) =>
  error instanceof ActivityFailure &&
  error.cause instanceof TimeoutFailure &&
  error.cause.timeoutType === 'SCHEDULE_TO_START';

interface RouteRun {
  /** The model's own provider's call, on its task queue. */
  generateOutputs: ReturnType<typeof providerActivities>['generateOutputs'];
  upstream: UpstreamJob;
  /** When the model's time is up, counted from the start of the run; pushed back by the waits for a provider slot. */
  deadline: number;
}

/**
 * Runs the task on the model's own provider, then, each time a route fails for a reason not the caller's and time
 * is left, on its next fallback route (on that provider's task queue). Returns the outputs and who served them.
 */
async function runOnRoutes(
  input: GenerationInput,
  { generateOutputs, upstream, ...run }: RouteRun,
): Promise<{ produced: GeneratedOutputs; servedBy: string; route: number }> {
  const task = { taskId: input.taskId, modelId: input.modelId };
  const fallbacks = input.fallbackProviders ?? [];
  // A wait for a provider slot is not the model's time (at most the queue bound; none for inputs without one).
  const queueMs = (input.queueTimeoutSeconds ?? 0) * 1000;
  let deadline = run.deadline;
  /** Route 0 is the model's own provider; route n the n-th fallback, taken after `from` failed. */
  const runRoute = async (provider: string, fallback?: { route: number; from: string }) => {
    const taskQueue = providerTaskQueue(workflowInfo().taskQueue, provider);
    const call = fallback
      ? providerActivities(input, taskQueue, Math.max(deadline - Date.now(), 1_000)).generateOutputs
      : generateOutputs;
    const routed = fallback ? { route: fallback.route, fallbackFrom: fallback.from } : {};
    const started = await call({ ...task, request: input.request, inputSeconds: input.inputSeconds, ...routed });
    if ('job' in started) upstream.submitted(started.job, fallback && { taskQueue, route: fallback.route });
    // Cancelled while the call ran (and it finished anyway): its result is not wanted; a job is cancelled later.
    if (CancellationScope.current().consideredCancelled) throw new CancelledFailure('The task was cancelled.');
    if (!('job' in started)) return started;
    // The time the submission waited for a provider slot is not the model's: the job gets its whole timeout.
    deadline += Math.min(started.job.queuedMs ?? 0, queueMs);
    return await upstream.awaitUpstreamJob(started.job, deadline);
  };
  const afterFailure = async (error: unknown, failed: string, route: number) => {
    const next = fallbacks[route];
    // A route that got no slot waited for one the whole queue bound: none of it was the model's time.
    if (isQueueTimeout(error)) deadline += queueMs;
    // patched: histories recorded before fallback routes replay as they ran.
    const switching = next !== undefined && isRouteFailure(error) && Date.now() < deadline;
    if (!switching || CancellationScope.current().consideredCancelled || !patched('provider-fallback')) throw error;
    // A job the failed route left running upstream is stopped before the next route starts its own.
    await CancellationScope.nonCancellable(() => upstream.cancelUncollected());
    log.warn('provider route failed; the next route takes the task', {
      taskId: input.taskId,
      from: failed,
      to: next,
      reason: error instanceof ActivityFailure ? error.cause?.message : String(error),
    });
    return attempt(next, route + 1, failed);
  };
  const attempt = async (
    provider: string,
    route: number,
    from?: string,
  ): Promise<{ produced: GeneratedOutputs; servedBy: string; route: number }> => {
    try {
      const produced = await runRoute(provider, from === undefined ? undefined : { route, from });
      return { produced, servedBy: provider, route };
    } catch (error) {
      return afterFailure(error, provider, route);
    }
  };
  return attempt(providerSlugOf(input.modelId), 0);
}

/** Only what our own code says about a failure reaches the caller; anything else gets a generic sentence. */
function callerSafeError(error: unknown, { timeoutSeconds, queueTimeoutSeconds }: GenerationInput): string {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure && ['ProviderRefusal', 'RouteUnavailable'].includes(cause.type ?? ''))
    return cause.message;
  // The gateway's own account with the provider was refused: nothing about the caller's request.
  if (cause instanceof ApplicationFailure && cause.type === 'ProviderUnavailable')
    return 'The model is not available right now: its provider refused this gateway. You have not been charged.';
  if (cause instanceof ApplicationFailure && cause.type === 'AdmissionFailed') return admissionFailedError;
  if (cause instanceof ApplicationFailure && cause.type === 'PaymentNotSettled')
    return `The x402 payment could not be settled: ${cause.message}. The outputs were discarded and nothing was charged.`;
  if (error instanceof ActivityFailure && error.activityType === 'settlePayment')
    return 'The x402 payment could not be settled in time: the outputs were discarded and nothing was charged.';
  if (isQueueTimeout(error))
    return `The model could not start within ${queueTimeoutSeconds} seconds: the gateway is busy. You have not been charged.`;
  // Only running or waiting for the model counts against its timeout (collecting outputs has its own limit).
  const modelTimedOut =
    cause instanceof TimeoutFailure &&
    error instanceof ActivityFailure &&
    ['generateOutputs', 'checkUpstreamJob'].includes(error.activityType);
  if (modelTimedOut || (cause instanceof ApplicationFailure && cause.type === 'ModelTimeout'))
    return `The model did not finish within ${timeoutSeconds} seconds.`;
  return 'The generation failed at the provider. You have not been charged.';
}

/** Keeps GenStatus current for the Web UI's list. patched: histories recorded before it replay without the upserts. */
function recordStatus(status: GenStatus) {
  if (patched('search-attributes')) upsertSearchAttributes([{ key: genStatus, value: status }]);
}

/** GenProvider follows the route that served the task (the Web UI's filter), once a fallback took it over. */
function recordProvider(provider: string, route: number) {
  if (route > 0) upsertSearchAttributes([{ key: genProvider, value: provider }]);
}

const isAdmissionRefused = (error: unknown) => error instanceof ApplicationFailure && error.type === 'AdmissionRefused';

export async function generationWorkflow(input: GenerationInput): Promise<TaskView | null> {
  const task = { taskId: input.taskId, modelId: input.modelId };
  let view: TaskView | null = null;
  setHandler(stateQuery, () => view);
  const admitting = handleAdmitUpdate(input, (admitted) => {
    view ??= admitted;
  });
  const admission = admitting.admission;
  const providerQueue = providerTaskQueue(workflowInfo().taskQueue, providerSlugOf(input.modelId));
  const { generateOutputs } = providerActivities(input, providerQueue);
  const upstream = upstreamJobOf(task, providerQueue);

  try {
    // 1. Admit: the api is answered from the update; the long tail follows.
    const admitted = await awaitAdmission(admitting);
    // A task that ended already (in an earlier run of this id, or failed by the reconciler) is not run again.
    if (admitted.status === 'completed' || admitted.status === 'failed') {
      recordStatus(admitted.status);
      await condition(allHandlersFinished);
      return admitted;
    }
    // 2. Run: the provider activity stores the outputs (3. Store) as it collects them.
    view = await databaseSteps().markProcessing(input.taskId);
    recordStatus('processing');
    const deadline = Date.now() + input.timeoutSeconds * 1000;
    const { produced, servedBy, route } = await runOnRoutes(input, { generateOutputs, upstream, deadline });
    recordProvider(servedBy, route);
    // 4. Settle. Not cancellable: a cancel arriving now must not race the charge. An x402 payment moves on chain
    // first, and only now: a task that failed before this point never takes the payer's money.
    view = await CancellationScope.nonCancellable(async () => {
      const delivered = { ...task, ...produced, servedBy };
      if (!input.payment) return databaseSteps().settleTask(delivered);
      await settlementActivities(input).settlePayment(delivered);
      return completePaidTask(delivered);
    });
  } catch (error) {
    if (isAdmissionRefused(error)) {
      recordStatus('refused');
      throw error; // nothing was reserved
    }
    // Compensation: release whatever admission reserved and end `failed`, even if the workflow is being cancelled.
    // A cancelled task says so, whatever the step it interrupted then failed with (an abandoned download, …).
    const message = CancellationScope.current().consideredCancelled ? cancelledError : callerSafeError(error, input);
    view = await CancellationScope.nonCancellable(async () => {
      await upstream.cancelUncollected();
      return failTask({ taskId: input.taskId, error: message });
    });
    // Without a task there is nothing to report on: the workflow fails with the cause. An admission that failed after
    // its row committed left a task (now failed) that a retried POST answers with: it is reported like any other.
    if (admission().state !== 'admitted' && !view) {
      recordStatus('failed');
      throw error;
    }
  }
  recordStatus(view?.status ?? 'failed');
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
