// Running a task on the model's routes: its own provider first, then each fallback in catalog order while the failure
// is not the caller's and the model's time is not up. Each route's calls run on its provider's task queue.
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  log,
  proxyActivities,
  TimeoutFailure,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { ProviderActivities } from '../../activities/provider.activities.ts';
import { provider as providerOptions } from './activity-options.ts';
import type { GenerationInput } from '../contracts/generation.types.ts';
import type { GeneratedOutputs } from '../contracts/provider.types.ts';
import { genProvider } from '../contracts/search-attributes.ts';
import { providerSlugOf, providerTaskQueue } from '../contracts/task-queues.ts';
import type { UpstreamJob } from './upstream-job.ts';

/** One run over the routes; its deadline moves as the waits for a provider slot are handed back. */
interface RouteRun {
  input: GenerationInput;
  upstream: UpstreamJob;
  /** When the model's time is up, counted from the start of the run; pushed back by the waits for a provider slot. */
  deadline: number;
  /** A wait for a provider slot is not the model's time (at most the queue bound; none for inputs without one). */
  queueMs: number;
}

/** The outputs and who served them: route 0 is the model's own provider, route n its n-th fallback. */
export interface Served {
  produced: GeneratedOutputs;
  servedBy: string;
  route: number;
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
    ...providerOptions,
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
export function isRouteFailure(error: unknown): boolean {
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

/**
 * The provider call got no slot on its provider's queue within the queue bound. Without one (tasks started before
 * it) the server bounds the wait by the model's own timeout: a wait that outlasts it is the model's time running out.
 */
export const isQueueTimeout = (error: unknown, { queueTimeoutSeconds }: Pick<GenerationInput, 'queueTimeoutSeconds'>) =>
  !!queueTimeoutSeconds &&
  error instanceof ActivityFailure &&
  error.cause instanceof TimeoutFailure &&
  error.cause.timeoutType === 'SCHEDULE_TO_START';

/**
 * Runs the task on the model's own provider, then, each time a route fails for a reason not the caller's and time
 * is left, on its next fallback route. The model's time starts now. GenProvider follows a fallback that served it.
 */
export async function runOnRoutes(input: GenerationInput, upstream: UpstreamJob): Promise<Served> {
  const deadline = Date.now() + input.timeoutSeconds * 1000;
  const run: RouteRun = { input, upstream, deadline, queueMs: (input.queueTimeoutSeconds ?? 0) * 1000 };
  const served = await attempt(run, providerSlugOf(input.modelId), 0);
  // The Web UI's provider filter shows who served the task.
  if (served.route > 0) upsertSearchAttributes([{ key: genProvider, value: served.servedBy }]);
  return served;
}

async function attempt(run: RouteRun, provider: string, route: number, from?: string): Promise<Served> {
  try {
    const produced = await runRoute(run, provider, from === undefined ? undefined : { route, from });
    return { produced, servedBy: provider, route };
  } catch (error) {
    return afterFailure(run, error, provider, route);
  }
}

/** One route's provider call, then its upstream job if it submitted one; `fallback` names the route and who failed. */
async function runRoute(
  run: RouteRun,
  provider: string,
  fallback?: { route: number; from: string },
): Promise<GeneratedOutputs> {
  const { input, upstream } = run;
  const taskQueue = providerTaskQueue(workflowInfo().taskQueue, provider);
  const { generateOutputs } = providerActivities(
    input,
    taskQueue,
    fallback && Math.max(run.deadline - Date.now(), 1_000),
  );
  const routed = fallback ? { route: fallback.route, fallbackFrom: fallback.from } : {};
  const task = { taskId: input.taskId, modelId: input.modelId };
  const started = await generateOutputs({
    ...task,
    request: input.request,
    inputSeconds: input.inputSeconds,
    ...routed,
  });
  if ('job' in started) upstream.submitted(started.job, fallback && { taskQueue, route: fallback.route });
  // Cancelled while the call ran (and it finished anyway): its result is not wanted; a job is cancelled later.
  if (CancellationScope.current().consideredCancelled) throw new CancelledFailure('The task was cancelled.');
  if (!('job' in started)) return started;
  // The time the submission waited for a provider slot is not the model's: the job gets its whole timeout.
  run.deadline += Math.min(started.job.queuedMs ?? 0, run.queueMs);
  return await upstream.awaitUpstreamJob(started.job, run.deadline);
}

/** After route `route` failed: the next route takes the task if the failure allows it and time is left; else rethrows. */
async function afterFailure(run: RouteRun, error: unknown, failed: string, route: number): Promise<Served> {
  const next = run.input.fallbackProviders?.[route];
  // A route that got no slot waited for one the whole queue bound: none of it was the model's time.
  if (isQueueTimeout(error, run.input)) run.deadline += run.queueMs;
  const switching = next !== undefined && isRouteFailure(error) && Date.now() < run.deadline;
  if (!switching || CancellationScope.current().consideredCancelled) throw error;
  // A job the failed route left running upstream is stopped before the next route starts its own.
  await CancellationScope.nonCancellable(() => run.upstream.cancelUncollected());
  log.warn('provider route failed; the next route takes the task', {
    taskId: run.input.taskId,
    from: failed,
    to: next,
    reason: error instanceof ActivityFailure ? error.cause?.message : String(error),
  });
  return attempt(run, next, route + 1, failed);
}
