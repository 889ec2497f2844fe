// Activities that call providers; they run on the provider's own task queue. A runner answers in one call; an
// upstream job is submitted here, then checked, collected or cancelled by the workflow, which waits between
// checks on a durable timer or the upstream's callback (signal). Outputs are copied into our storage at once.
import { ApplicationFailure, Context, log } from '@temporalio/activity';
import { type Catalog, type CatalogModel, modelOnRoute } from '../src/catalog/catalog.ts';
import type { Config } from '../src/config/config.ts';
import type { PrismaClient } from '../src/db/prisma.ts';
import type { GenerationRequest } from '../src/domain/generation-request.ts';
import { grownSinceAdmission } from '../src/generations/measured-inputs.ts';
import { metrics } from '../src/metrics/metrics.ts';
import { measuredProviderCall, type ProviderOperation } from '../src/providers/provider-metrics.ts';
import { InputFetchError } from '../src/providers/fetch-input.ts';
import { readInput } from '../src/providers/read-input.ts';
import { createProviders, type Providers } from '../src/providers/registry.ts';
import {
  type JobState,
  type Provider,
  ProviderAccountError,
  ProviderRefusal,
  ProviderRetryLater,
  type UpstreamJobs,
} from '../src/providers/types.ts';
import { recordProgress, throttledProgress } from '../src/generations/task-progress.ts';
import type { Storage } from '../src/storage/storage.ts';
import { storeOutputs, withOutputDir } from './stored-outputs.ts';
import { modelOf } from './catalog-lookup.ts';
import { refusal, routeUnavailable } from './refusal.ts';
import { classifyFailures } from './failures.ts';
import { withinModelTime } from './model-time.ts';
import type { GeneratedOutputs, JobRef, SubmittedJob } from '../workflows/contracts/provider.types.ts';

export interface ProviderActivityDeps {
  /** For progress reports only: what a running task shows while it runs. */
  prisma: PrismaClient;
  catalog: Catalog;
  storage: Storage;
  config: Pick<Config, 'providers' | 'inputs'>;
  /** Built from `config` when not given. */
  providers?: Providers;
}

/**
 * One call to the model's provider, timed and counted (src/metrics), then our adapters' classification in Temporal's
 * terms: permanent, delayed (Retry-After) or plainly transient.
 */
async function classified<T>(model: CatalogModel, operation: ProviderOperation, step: () => Promise<T>): Promise<T> {
  try {
    return await measuredProviderCall(model.provider, operation, step);
  } catch (error) {
    if (error instanceof ProviderRefusal || error instanceof InputFetchError) throw refusal(error.message);
    if (error instanceof ProviderAccountError) {
      // The operator's problem: logged for them in full; the caller hears only that the model is unavailable.
      log.error('provider account refused: fix the provider key or its credit', { reason: error.message });
      throw ApplicationFailure.nonRetryable(error.message, 'ProviderUnavailable');
    }
    if (error instanceof ProviderRetryLater)
      throw ApplicationFailure.create({ message: error.message, nextRetryDelay: error.delayMs });
    throw error;
  }
}

/**
 * The bytes a runner is about to send upstream, when the task was priced on their length: the same URL may serve a
 * longer file now than when admission measured it, which would cost more than was reserved. That is refused.
 */
async function measuredInput(
  model: CatalogModel,
  input: { request: GenerationRequest; inputSeconds?: number },
  fetched: { url: string; data: Buffer },
): Promise<void> {
  if (input.inputSeconds === undefined) return;
  const grown = await grownSinceAdmission(model, input.request, {
    ...fetched,
    inputSeconds: input.inputSeconds,
    deadlineMs: Date.now() + 60_000,
  });
  if (grown) throw new ProviderRefusal(grown);
}

/**
 * The model as the route runs it (its own provider, or a fallback's provider and upstream names) and the adapter
 * that runs it on this server. A route that cannot run here is not the caller's doing: the next one may.
 */
function resolveAdapter(catalog: Catalog, providers: Providers, id: string, route = 0) {
  const model = modelOnRoute(modelOf(catalog, id), route);
  if (!model) throw routeUnavailable(`${id} has no route ${route} any more`);
  const adapter = providers.for(model);
  if (!adapter) throw routeUnavailable(`${model.id} cannot run on this server`);
  return { model, adapter };
}

/** The model's upstream job queue; a model that does not run as an upstream job has none. */
function jobsOf(catalog: Catalog, providers: Providers, id: string, route?: number) {
  const { model, adapter } = resolveAdapter(catalog, providers, id, route);
  if (adapter.kind !== 'jobs') throw refusal(`${model.id} does not run as an upstream job`);
  return { model, jobs: adapter.jobs };
}

/** Writes an upstream job's progress; the last report per task is kept (polls repeat it) and not written again. */
function upstreamProgressReporter(prisma: PrismaClient) {
  const upstreamProgress = new Map<string, string>();
  return async (taskId: string, state: Extract<JobState, { state: 'pending' }>) => {
    const progress = {
      ...(state.stage !== undefined ? { stage: state.stage } : {}),
      ...(state.percent !== undefined ? { percent: state.percent } : {}),
      ...(state.queuePosition !== undefined ? { queue_position: state.queuePosition } : {}),
    };
    const serialized = JSON.stringify(progress);
    if (upstreamProgress.get(taskId) === serialized) return;
    if (upstreamProgress.size >= 10_000) upstreamProgress.clear(); // tasks that ended leave their entry behind
    upstreamProgress.set(taskId, serialized);
    await recordProgress(prisma, taskId, progress);
  };
}

// Heartbeats let Temporal notice a dead worker within the heartbeat timeout, and bring a cancel to the call.
async function heartbeating<T>(step: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const activity = Context.current();
  const heartbeat = setInterval(() => activity.heartbeat(), 1_000);
  try {
    return await step(activity.cancellationSignal);
  } finally {
    clearInterval(heartbeat);
  }
}

interface GenerateOutputsInput {
  taskId: string;
  modelId: string;
  request: GenerationRequest;
  /** The measured length the task was priced on: an input that grew since is refused (see measuredInput). */
  inputSeconds?: number;
  /** A fallback route (1… in the model's `fallbacks`), taken after the provider `fallbackFrom` failed. */
  route?: number;
  fallbackFrom?: string;
}

/** Submits the upstream job the workflow then waits for; a job submitted after the call was abandoned is cancelled. */
async function submitJob(
  deps: ProviderActivityDeps,
  model: CatalogModel,
  jobs: UpstreamJobs,
  input: GenerateOutputsInput,
  call: { signal: AbortSignal; queuedMs: number },
): Promise<{ job: SubmittedJob }> {
  const { signal, queuedMs } = call;
  const base = deps.config.providers.callbackBaseUrl?.replace(/\/$/, '');
  const callbackUrl = base && `${base}/callbacks/${model.provider}/${input.taskId}`;
  const jobId = await classified(model, 'submit', () => jobs.submit(input.request, model, { callbackUrl, signal }));
  // Timed out or cancelled while the upstream accepted it: nobody will wait for this job.
  if (signal.aborted) {
    await jobs.cancel(model, jobId).catch(() => undefined);
    throw new Error('the call was abandoned while the job was submitted; the job was cancelled');
  }
  return {
    job: {
      jobId,
      pollIntervalMs: deps.config.providers.pollIntervalMs,
      pollMaxIntervalMs: deps.config.providers.pollMaxIntervalMs,
      queuedMs,
    },
  };
}

/** Runs a runner in one call, reading its inputs through our fetcher, and stores what it produced. */
async function runAndStore(
  deps: ProviderActivityDeps,
  model: CatalogModel,
  runner: Extract<Provider, { kind: 'runner' }>,
  input: GenerateOutputsInput,
  signal: AbortSignal,
): Promise<GeneratedOutputs> {
  const progress = throttledProgress(deps.prisma, input.taskId);
  return withOutputDir(async (outputDir) => {
    const result = await classified(model, 'run', () =>
      runner.run(input.request, model, {
        outputDir,
        fetchInput: async (url) => {
          progress.report({ stage: 'downloading input' });
          const fetched = await readInput(url, {
            storage: deps.storage,
            maxBytes: deps.config.inputs.maxBytes,
            timeoutMs: 30_000,
            allowPrivate: deps.config.inputs.allowPrivateUrls,
            signal,
          });
          await measuredInput(model, input, { url, data: fetched.data });
          progress.report({ stage: 'running' });
          return fetched;
        },
        signal,
        progress: (report) => progress.report(report),
      }),
    ).finally(() => progress.close());
    return { outputs: await storeOutputs(deps.storage, input.taskId, result.files, signal), usage: result.usage };
  });
}

export function createProviderActivities(deps: ProviderActivityDeps) {
  const providers = deps.providers ?? createProviders(deps.config);
  const reportUpstreamProgress = upstreamProgressReporter(deps.prisma);

  return classifyFailures({
    /** Runs the model and stores its outputs; for an upstream that queues work, submits the job instead. */
    async generateOutputs(input: GenerateOutputsInput): Promise<GeneratedOutputs | { job: SubmittedJob }> {
      const queuedMs = Math.max(Date.now() - Context.current().info.currentAttemptScheduledTimestampMs, 0);
      const { model, adapter } = resolveAdapter(deps.catalog, providers, input.modelId, input.route);
      // Counted once per switch, by the first attempt on the new route.
      if (input.route && input.fallbackFrom && Context.current().info.attempt === 1)
        metrics.providerFallbacks.inc({ model: model.id, from: input.fallbackFrom, to: model.provider });
      return withinModelTime(async (signal) =>
        adapter.kind === 'jobs'
          ? submitJob(deps, model, adapter.jobs, input, { signal, queuedMs })
          : runAndStore(deps, model, adapter, input, signal),
      );
    },

    /** Whether the job is done; a job the upstream failed fails the task (refunded) with the upstream's reason. */
    async checkUpstreamJob(input: JobRef): Promise<{ done: boolean; queuePosition?: number }> {
      const { model, jobs } = jobsOf(deps.catalog, providers, input.modelId, input.route);
      const state = await classified(model, 'status', () =>
        jobs.status(model, input.jobId, Context.current().cancellationSignal),
      );
      if (state.state === 'failed') throw refusal(state.reason);
      if (state.state === 'succeeded') return { done: true };
      await reportUpstreamProgress(input.taskId, state);
      return { done: false, queuePosition: state.queuePosition };
    },

    async collectUpstreamJob(input: JobRef): Promise<GeneratedOutputs> {
      const { model, jobs } = jobsOf(deps.catalog, providers, input.modelId, input.route);
      return heartbeating((signal) =>
        withOutputDir(async (outputDir) => {
          const result = await classified(model, 'collect', () =>
            jobs.collect(model, input.jobId, { signal, outputDir }),
          );
          return { outputs: await storeOutputs(deps.storage, input.taskId, result.files, signal), usage: result.usage };
        }),
      );
    },

    /** Stops (and stops paying for) a job the task no longer wants: it was cancelled, timed out or failed. */
    async cancelUpstreamJob(input: JobRef): Promise<void> {
      const { model, jobs } = jobsOf(deps.catalog, providers, input.modelId, input.route);
      await classified(model, 'cancel', () => jobs.cancel(model, input.jobId));
    },
  });
}

export type ProviderActivities = ReturnType<typeof createProviderActivities>;
