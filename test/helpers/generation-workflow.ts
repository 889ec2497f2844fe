// The generation workflow on a time-skipping server, with the real money activities on a real database and
// stand-ins (typed as the real activities) for the provider calls: shared by its tests and the history recorder.
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { configuredFacilitator } from '../../src/payments/methods/x402/facilitator.ts';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createGenerationActivities, type GenerationActivities } from '../../activities/generation.activities.ts';
import type { ProviderActivities } from '../../activities/provider.activities.ts';
import { createWebhookActivities } from '../../activities/webhook.activities.ts';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import { loadConfig } from '../../src/config/config.ts';
import type { GenerationRequest } from '../../src/domain/generation-request.ts';
import { requestHash } from '../../src/generations/request.ts';
import { newId } from '../../src/domain/ids.ts';
import { providerSlugOf, providerTaskQueue } from '../../workflows/contracts/task-queues.ts';
import { admitUpdate, type GenerationInput, generationShape } from '../../workflows/contracts/generation.types.ts';
import { generationWorkflow } from '../../workflows/generation/generation.workflow.ts';
import { createFundedAccount } from './accounts.ts';
import type { TestDatabase } from './database.ts';
import { uniqueTaskQueue } from './temporal.ts';
import { mergeConfig } from './config.ts';
import { testStorage } from './app.ts';
import { webhookStarter } from '../../src/use-cases/temporal/worker-starter.ts';

export const upscaleRequest: GenerationRequest = {
  type: 'upscale',
  model: 'local/lanczos',
  image_url: 'https://inputs.test/a.png',
};

export interface TaskInputOptions {
  /** What admission reserves; default 0.50. */
  costMicros?: bigint;
  timeoutSeconds?: number;
  queueTimeoutSeconds?: number;
  request?: GenerationRequest;
  /** The input's `shape` (workflows/patches.ts): the api's by default; 0 = none (a run started before it). */
  shape?: number;
}

export interface RunOptions {
  input: GenerationInput;
  /** Stands in for the provider call (`generateOutputs`), or for all the provider activities. */
  provider: ProviderActivities['generateOutputs'] | Partial<ProviderActivities>;
  /** Runs once the task is admitted, before its result is awaited (a cancel, a signal). */
  whileRunning?: (handle: WorkflowHandle<typeof generationWorkflow>) => Promise<void>;
  /** false: the admit update is never sent, as when Temporal lost it. */
  admit?: boolean;
  /** Stands in for the admit step (a database that commits but does not answer); its update's failure is returned. */
  admitTask?: GenerationActivities['admitTask'];
  /** A fallback route's provider activities, on its provider's queue (`input.fallbackProviders[0]`). */
  fallback?: Partial<ProviderActivities>;
  /** Provider calls the provider's worker runs at once (its *_CONCURRENCY); 0: no provider worker at all. */
  providerSlots?: number;
  /** Runs after the task's workflow closed, its workers still running (a delivery workflow it handed over to). */
  afterwards?: () => Promise<void>;
}

/** `context` is read at each call, so it may be filled in by a beforeAll after this is called. */
export function generationWorkflowHarness(context: {
  env: TestWorkflowEnvironment;
  database: TestDatabase;
  workflowBundle: WorkflowBundleWithSourceMap;
}) {
  const baseConfig = loadConfig({ ALLOW_PRIVATE_WEBHOOK_URLS: 'true' }, []);
  // The webhook activities too: the notify step runs here, and hands a failed first attempt to a delivery workflow
  // on the worker's own queue.
  const realActivities = (taskQueue: string) => {
    const config = mergeConfig(baseConfig, { temporal: { taskQueue } });
    const starter = webhookStarter({ prisma: context.database.prisma, config });
    return {
      ...createGenerationActivities({
        prisma: context.database.prisma,
        storage: testStorage(),
        catalog: loadCatalog(),
        config,
        facilitator: configuredFacilitator(config),
        starter,
      }),
      ...createWebhookActivities({ prisma: context.database.prisma, config, starter }),
    };
  };

  /** A task of a fresh account holding 1.00. */
  async function newTaskInput({
    costMicros = 500_000n,
    timeoutSeconds = 120,
    queueTimeoutSeconds,
    request = upscaleRequest,
    shape = generationShape,
  }: TaskInputOptions = {}): Promise<GenerationInput> {
    const accountId = await createFundedAccount(context.database.prisma, { deposit: 1_000_000n });
    return {
      taskId: newId('gen'),
      accountId,
      request,
      costMicros: costMicros.toString(),
      idempotencyKey: null,
      modelId: request.model,
      requestHash: requestHash(request),
      timeoutSeconds,
      ...(queueTimeoutSeconds ? { queueTimeoutSeconds } : {}),
      ...(shape ? { shape } : {}),
    };
  }

  /**
   * Runs `body` with a worker for the workflows and one for the provider calls (on the model's provider queue; local
   * models: `<queue>-local`) holding `providerSlots` calls at once, or none (`providerSlots: 0`), plus a fallback route's.
   */
  async function withWorkers<T>(
    { modelId, fallbackProviders }: GenerationInput,
    {
      provider,
      fallback,
      providerSlots,
      admitTask,
    }: Pick<RunOptions, 'provider' | 'fallback' | 'providerSlots' | 'admitTask'>,
    body: (taskQueue: string) => Promise<T>,
  ): Promise<T> {
    const taskQueue = uniqueTaskQueue('generation');
    const worker = await Worker.create({
      connection: context.env.nativeConnection,
      taskQueue,
      workflowBundle: context.workflowBundle,
      activities: { ...realActivities(taskQueue), ...(admitTask ? { admitTask } : {}) },
    });
    const providerWorker =
      providerSlots === 0
        ? undefined
        : await Worker.create({
            connection: context.env.nativeConnection,
            taskQueue: providerTaskQueue(taskQueue, providerSlugOf(modelId)),
            activities: typeof provider === 'function' ? { generateOutputs: provider } : provider,
            ...(providerSlots ? { maxConcurrentActivityTaskExecutions: providerSlots } : {}),
          });
    const fallbackProvider = fallbackProviders?.[0];
    const fallbackWorker =
      fallback &&
      fallbackProvider &&
      (await Worker.create({
        connection: context.env.nativeConnection,
        taskQueue: providerTaskQueue(taskQueue, fallbackProvider),
        activities: fallback,
      }));
    const within = (extra: Worker | undefined, inner: () => Promise<T>) => (extra ? extra.runUntil(inner) : inner());
    return within(fallbackWorker || undefined, () =>
      within(providerWorker, () => worker.runUntil(() => body(taskQueue))),
    );
  }

  /** Starts the workflow on `taskQueue`, admits it through its update (as the API does), and waits for the end. */
  async function admitAndAwait(
    taskQueue: string,
    {
      input,
      whileRunning,
      admit = true,
      afterwards,
    }: Pick<RunOptions, 'input' | 'whileRunning' | 'admit' | 'afterwards'>,
  ) {
    const handle = await context.env.client.workflow.start(generationWorkflow, {
      taskQueue,
      workflowId: input.taskId,
      args: [input],
    });
    const admission = admit
      ? await handle
          .executeUpdate(admitUpdate, { args: [{ requestHash: input.requestHash }] })
          .catch((updateFailure: unknown) => ({ outcome: 'update_failed' as const, updateFailure }))
      : undefined;
    await whileRunning?.(handle);
    const outcome = await handle.result().then(
      (result) => ({ result, failure: undefined }),
      (failure: unknown) => ({ result: undefined, failure }),
    );
    await afterwards?.();
    return { admission, ...outcome, history: await handle.fetchHistory() };
  }

  /** Runs one task to its end with its own workers. */
  function run(options: RunOptions) {
    return withWorkers(options.input, options, (taskQueue) => admitAndAwait(taskQueue, options));
  }

  /** Runs tasks of one model at once, sharing the workers (and so the provider's slots). */
  function runTogether(inputs: GenerationInput[], options: Omit<RunOptions, 'input'>) {
    return withWorkers(inputs[0]!, options, (taskQueue) =>
      Promise.all(inputs.map((input) => admitAndAwait(taskQueue, { ...options, input }))),
    );
  }

  return { newTaskInput, run, runTogether };
}

/** The provider half of an upstream job (fal, Replicate): submitted as `job-1`, polled at these intervals. */
export const submittedJob = (pollIntervalMs: number, pollMaxIntervalMs: number) => async () => ({
  job: { jobId: 'job-1', pollIntervalMs, pollMaxIntervalMs },
});

/** FLUX schnell: fal, with Replicate as its fallback route. */
export const schnellRequest: GenerationRequest = {
  type: 'text-to-image',
  model: 'fal/flux-schnell',
  prompt: 'a lighthouse at dusk',
  num_outputs: 1,
};

export const textToVideoRequest: GenerationRequest = {
  type: 'text-to-video',
  model: 'fal/veo-3-fast',
  prompt: 'a slow pan over a harbour',
  duration: 8,
};
