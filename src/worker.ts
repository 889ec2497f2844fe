// The worker role: runs workflows and activities. It survives a Temporal outage by recreating itself.
import { Client } from '@temporalio/client';
import { NativeConnection, Runtime, Worker, type WorkerOptions, type WorkflowBundleOption } from '@temporalio/worker';
import {
  type ActivityDeps,
  createActivities,
  createProviderActivities,
  createWebhookActivities,
} from '../activities/index.ts';
import { providerTaskQueue } from '../workflows/contracts/task-queues.ts';
import type { Catalog } from './catalog/catalog.ts';
import { type Config, shutdownBudget } from './config/config.ts';
import type { PrismaClient } from './db/prisma.ts';
import { providerList } from './providers/provider-list.ts';
import type { Logger } from './infra/logger.ts';
import type { Storage } from './storage/storage.ts';
import type { TemporalTracing } from './use-cases/temporal/tracing.ts';
import { bundleWorkflowsApart, prebuiltWorkflowBundle } from './use-cases/temporal/workflow-bundle.ts';
import type { PaymentServices } from './payments/methods/registered.ts';
import { createWorkerStarter } from './use-cases/temporal/worker-starter.ts';
import type { Providers } from './providers/registry.ts';
import { connectOptions } from './use-cases/temporal/connection.ts';

export interface WorkerDeps {
  /** `config.temporal` names the server, with its TLS and API key (connectOptions). */
  config: Config;
  prisma: PrismaClient;
  /** One facilitator for the life of the process: its nonce manager must see every settlement it sends. */
  facilitator: PaymentServices['facilitator'];
  providers: Providers;
  catalog: Catalog;
  storage: Storage;
  logger: Logger;
  /** OpenTelemetry, when on: the workers trace workflows and activities. */
  tracing?: TemporalTracing;
}

export interface RunningWorker {
  stop(): Promise<void>;
}

const restartDelayMs = 5_000;

// One bundle per process, shared by the workers and every rebuild after an outage: bundling takes seconds. The
// build's bundle has no tracing interceptors, so with tracing on the workflows are bundled here.
let bundle: Promise<WorkflowBundleOption> | undefined;
function workflowBundle(interceptorModules: string[]): Promise<WorkflowBundleOption> {
  const prebuilt = interceptorModules.length === 0 ? prebuiltWorkflowBundle() : undefined;
  if (prebuilt) return Promise.resolve(prebuilt);
  bundle ??= bundleWorkflowsApart(Runtime.instance().logger, interceptorModules).catch((error: unknown) => {
    bundle = undefined;
    throw error;
  });
  return bundle;
}

/**
 * Whether deliveries an earlier build started on the webhooks task queue are still open: their workflows finish
 * there. Deliveries now run on the main queue, so once they are gone that queue's worker (and its isolate) is not made.
 */
async function earlierDeliveriesOpen(connection: NativeConnection, namespace: string, queue: string): Promise<boolean> {
  const client = new Client({ connection, namespace });
  const { count } = await client.workflow.count(`TaskQueue = '${queue}' AND ExecutionStatus = 'Running'`);
  return count > 0;
}

/**
 * The workers of one process: the main task queue (workflows, database steps and webhook deliveries), one queue per
 * provider, each limited to its configured concurrency, and the webhooks queue while an earlier build's deliveries
 * are open there. `workflows` is a bundle or the sources' path; with `tracing`, a bundle must include its workflow
 * interceptors (workflowInterceptorModules).
 */
export async function createWorkers(
  connection: NativeConnection,
  options: {
    config: Pick<Config, 'server' | 'temporal' | 'providers'>;
    taskQueue: string;
    namespace?: string;
    workflows: Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'>;
    tracing?: TemporalTracing;
  },
  deps: ActivityDeps,
): Promise<Worker[]> {
  const budget = shutdownBudget(options.config.server);
  const common = {
    connection,
    namespace: options.namespace ?? options.config.temporal.namespace,
    // A stop lets running activities finish for a while, then cancels them; a worker that still has not shut down
    // is cut off. What it leaves unfinished times out on the server and is retried by the next worker.
    shutdownGraceTime: budget.activitiesMs,
    shutdownForceTime: budget.workerMs,
    maxCachedWorkflows: options.config.temporal.workflowCacheSize,
    ...options.tracing?.workerOptions,
  };
  const providerActivities = createProviderActivities(deps);
  const webhookQueue = options.config.temporal.webhookTaskQueue;
  const drainWebhookQueue = await earlierDeliveriesOpen(connection, common.namespace, webhookQueue);
  const created = await Promise.allSettled([
    // The provider activities stay on the main queue too, for tasks an earlier build scheduled there.
    Worker.create({
      ...common,
      taskQueue: options.taskQueue,
      ...options.workflows,
      activities: { ...createActivities(deps), ...providerActivities },
    }),
    ...providerList.map((provider) =>
      Worker.create({
        ...common,
        taskQueue: providerTaskQueue(options.taskQueue, provider.slug),
        activities: providerActivities,
        maxConcurrentActivityTaskExecutions: provider.concurrency(options.config.providers),
      }),
    ),
    ...(drainWebhookQueue
      ? [
          Worker.create({
            ...common,
            taskQueue: webhookQueue,
            ...options.workflows,
            activities: createWebhookActivities(deps),
          }),
        ]
      : []),
  ]);
  const workers = created.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failure = created.find((result) => result.status === 'rejected');
  if (failure) {
    // Shut down the ones that were made, or they keep the connection (and native resources) alive.
    await Promise.allSettled(workers.map((worker) => worker.runUntil(Promise.resolve())));
    throw failure.reason;
  }
  return workers;
}

/** Runs the workers until `stop` settles; if one fails, the others are stopped too and the failure rethrown. */
export async function runWorkers(workers: Worker[], stop: Promise<unknown>): Promise<void> {
  let failed!: () => void;
  const anyFailed = new Promise<void>((resolve) => {
    failed = resolve;
  });
  const until = Promise.race([stop, anyFailed]);
  const results = await Promise.allSettled(
    workers.map((worker) =>
      worker.runUntil(until).catch((error: unknown) => {
        failed();
        throw error;
      }),
    ),
  );
  const failure = results.find((result) => result.status === 'rejected');
  if (failure) throw failure.reason;
}

/** Starts the worker and keeps it running: a worker that fails (e.g. Temporal went away) is rebuilt. */
export function startWorker(deps: WorkerDeps): RunningWorker {
  const log = deps.logger.child({ role: 'worker' });
  // The client-side steps the activities run (deposits, webhook deliveries, replays, the reconciler).
  const starter = createWorkerStarter(deps);
  let stopping = false;
  let requestStop!: () => void;
  // runUntil() shuts the worker down when this settles, whatever state the worker has reached by then.
  const stopRequested = new Promise<void>((resolve) => {
    requestStop = resolve;
  });

  const loop = (async () => {
    while (!stopping) {
      let connection: NativeConnection | undefined;
      try {
        connection = await NativeConnection.connect(connectOptions(deps.config.temporal));
        const workers = await createWorkers(
          connection,
          {
            config: deps.config,
            taskQueue: deps.config.temporal.taskQueue,
            workflows: { workflowBundle: await workflowBundle(deps.tracing?.workflowInterceptorModules ?? []) },
            tracing: deps.tracing,
          },
          { ...deps, starter },
        );
        // Even when a stop came in meanwhile: runUntil on a settled promise shuts the new workers down cleanly.
        log.info(
          {
            taskQueue: deps.config.temporal.taskQueue,
            providerQueues: providerList.length,
          },
          'worker running',
        );
        await runWorkers(workers, stopRequested);
      } catch (error) {
        if (!stopping) log.error({ err: error }, `worker stopped; retrying in ${restartDelayMs / 1000} s`);
      } finally {
        await connection?.close().catch(() => undefined);
      }
      if (!stopping) await Promise.race([stopRequested, new Promise((resolve) => setTimeout(resolve, restartDelayMs))]);
    }
  })();

  return {
    async stop() {
      stopping = true;
      requestStop();
      await loop;
    },
  };
}

/**
 * Route the SDK's own logs through pino once per process; with `metricsAddress` (host:port), the SDK's own worker
 * metrics (`temporal_…`) are served there for Prometheus (GET /metrics).
 */
export function installTemporalRuntimeLogger(logger: Logger, metricsAddress?: string): void {
  const log = logger.child({ component: 'temporal-sdk' });
  Runtime.install({
    ...(metricsAddress && {
      telemetryOptions: {
        metrics: {
          prometheus: {
            bindAddress: metricsAddress,
            countersTotalSuffix: true,
            unitSuffix: true,
            useSecondsForDurations: true,
          },
        },
      },
    }),
    // Our own handler stops the API, worker, Temporal and PostgreSQL in order; the SDK must not act on its own.
    shutdownSignals: [],
    logger: {
      log: (level, message, meta) =>
        log[level === 'TRACE' ? 'trace' : (level.toLowerCase() as 'info')](meta ?? {}, message),
      trace: (message, meta) => log.trace(meta ?? {}, message),
      debug: (message, meta) => log.debug(meta ?? {}, message),
      info: (message, meta) => log.info(meta ?? {}, message),
      warn: (message, meta) => log.warn(meta ?? {}, message),
      error: (message, meta) => log.error(meta ?? {}, message),
    },
  });
}
