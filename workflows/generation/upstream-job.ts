// An upstream that queues work (fal, Replicate) is waited for on durable timers, woken early by its callback: a
// poll alone would either hammer the upstream or notice the end late.
import { type ActivityOptions, ApplicationFailure, condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { ProviderActivities } from '../../activities/provider.activities.ts';
import type { GeneratedOutputs, JobRef, SubmittedJob } from '../contracts/provider.types.ts';
import { upstreamCallbackSignal } from '../contracts/generation.types.ts';

const upstreamRetry = { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' } as const;
// One status request. Each call narrows the schedule-to-close to the model's deadline.
const check = {
  startToCloseTimeout: '2 minutes',
  scheduleToCloseTimeout: '1 hour',
  retry: upstreamRetry,
} satisfies ActivityOptions;
// Collecting downloads the outputs: a job that succeeded gets its own ten minutes, past the model's timeout.
const collect = {
  startToCloseTimeout: '5 minutes',
  scheduleToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  retry: upstreamRetry,
} satisfies ActivityOptions;
const cancel = {
  startToCloseTimeout: '1 minute',
  retry: { ...upstreamRetry, maximumAttempts: 3 },
} satisfies ActivityOptions;

/** Callbacks kept while the job id is not known yet: one may beat the submission's answer; a few at most. */
const maxEarlyCallbacks = 8;

/** Where a job runs: its provider's task queue and, for a fallback, the route (1… in the model's `fallbacks`). */
export interface JobRoute {
  taskQueue: string;
  route?: number;
}

export interface UpstreamJob {
  /** Records a submitted job as the task's: from now on, a failure cancels it. A fallback's job names its route. */
  submitted(job: SubmittedJob, route?: JobRoute): void;
  /**
   * Waits for the job, checking it after each poll interval (growing by half up to the maximum) or at its callback,
   * then collects its outputs into our storage.
   */
  awaitUpstreamJob(job: SubmittedJob, deadline: number): Promise<GeneratedOutputs>;
  /** Cancels a job nobody will collect, so it stops costing (best effort: it may have ended). */
  cancelUncollected(): Promise<void>;
}

/**
 * The upstream job of one task, its activities on the provider's task queue. Made at the start of the run: the
 * callback handler must be there before the job id is.
 */
export function upstreamJobOf(task: { taskId: string; modelId: string }, taskQueue: string): UpstreamJob {
  const { checkUpstreamJob } = proxyActivities<ProviderActivities>({ ...check, taskQueue });
  const { collectUpstreamJob } = proxyActivities<ProviderActivities>({ ...collect, taskQueue });
  const { cancelUpstreamJob } = proxyActivities<ProviderActivities>({ ...cancel, taskQueue });

  // Only the current job's callback wakes the wait.
  const earlyCallbacks = new Set<string>();
  let currentJobId: string | undefined;
  let callbackArrived = false;
  setHandler(upstreamCallbackSignal, ({ jobId }) => {
    if (currentJobId === undefined) {
      if (earlyCallbacks.size < maxEarlyCallbacks) earlyCallbacks.add(jobId);
    } else if (jobId === currentJobId) {
      callbackArrived = true;
    }
  });
  let uncollected: JobRef | undefined;
  // The route of the job submitted last: its activities run on its provider's queue (the model's own by default).
  let queue: { taskQueue: string } = { taskQueue };
  let routed: { route?: number } = {};

  return {
    submitted(job, route) {
      queue = { taskQueue: route?.taskQueue ?? taskQueue };
      routed = route?.route ? { route: route.route } : {};
      uncollected = { ...task, jobId: job.jobId, ...routed };
    },

    async awaitUpstreamJob(job, deadline) {
      const ref: JobRef = { ...task, jobId: job.jobId, ...routed };
      currentJobId = job.jobId;
      callbackArrived = earlyCallbacks.has(job.jobId);
      let interval = job.pollIntervalMs;
      for (;;) {
        const remaining = deadline - Date.now();
        if (remaining <= 0)
          throw ApplicationFailure.nonRetryable('the upstream job outlived the model timeout', 'ModelTimeout');
        const called = await condition(() => callbackArrived, Math.min(interval, remaining));
        callbackArrived = false;
        const untilDeadline = Math.max(deadline - Date.now(), 1_000);
        const options = { ...queue, scheduleToCloseTimeout: untilDeadline };
        if ((await checkUpstreamJob.executeWithOptions(options, [ref])).done) break;
        if (!called) interval = Math.min(Math.round(interval * 1.5), job.pollMaxIntervalMs);
      }
      const outputs = await collectUpstreamJob.executeWithOptions(queue, [ref]);
      uncollected = undefined;
      return outputs;
    },

    async cancelUncollected() {
      if (uncollected) await cancelUpstreamJob.executeWithOptions(queue, [uncollected]).catch(() => undefined);
      uncollected = undefined;
      // A next route's job may call back before its id is known: kept as an early callback, as the first job's.
      currentJobId = undefined;
    },
  };
}
