// The worker role: runs workflows and activities. It survives a Temporal outage by recreating itself.
import { bundleWorkflowCode, NativeConnection, Runtime, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createActivities } from '../activities/index.ts';
import { createWebhookActivities } from '../activities/webhook.activities.ts';
import type { Catalog } from './catalog/catalog.ts';
import type { Config } from './config.ts';
import type { PrismaClient } from './db/prisma.ts';
import type { Logger } from './logger.ts';
import type { Storage } from './storage/local-storage.ts';
import { workflowsPath } from './temporal/workflows-path.ts';

export interface WorkerDeps {
  config: Config;
  temporalAddress: string;
  prisma: PrismaClient;
  catalog: Catalog;
  storage: Storage;
  logger: Logger;
}

export interface RunningWorker {
  stop(): Promise<void>;
}

const restartDelayMs = 5_000;

// One bundle per process, shared by both workers and every rebuild after an outage: bundling takes seconds.
let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;
function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({ workflowsPath: workflowsPath(), logger: Runtime.instance().logger }).catch((error: unknown) => {
    bundle = undefined;
    throw error;
  });
  return bundle;
}

/** Runs workers until `stop`; when one fails the others stop too, so the caller rebuilds them all. */
async function runTogether(workers: Worker[], stop: Promise<void>): Promise<void> {
  let failed!: () => void;
  const oneFailed = new Promise<void>((resolve) => { failed = resolve; });
  const until = Promise.race([stop, oneFailed]);
  const outcomes = await Promise.allSettled(workers.map((worker) => worker.runUntil(until).catch((error: unknown) => {
    failed();
    throw error;
  })));
  const failure = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failure) throw failure.reason;
}

/** Starts the worker and keeps it running: a worker that fails (e.g. Temporal went away) is rebuilt. */
export function startWorker(deps: WorkerDeps): RunningWorker {
  const log = deps.logger.child({ role: 'worker' });
  let stopping = false;
  let requestStop!: () => void;
  // runUntil() shuts the worker down when this settles, whatever state the worker has reached by then.
  const stopRequested = new Promise<void>((resolve) => { requestStop = resolve; });

  const loop = (async () => {
    while (!stopping) {
      let connection: NativeConnection | undefined;
      try {
        connection = await NativeConnection.connect({ address: deps.temporalAddress });
        const worker = await Worker.create({
          connection,
          namespace: deps.config.TEMPORAL_NAMESPACE,
          taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
          workflowBundle: await workflowBundle(),
          activities: createActivities(deps),
        });
        // Webhook deliveries poll their own task queue (DESIGN §2), so they can be sized apart from generations.
        const webhookWorker = await Worker.create({
          connection,
          namespace: deps.config.TEMPORAL_NAMESPACE,
          taskQueue: deps.config.TEMPORAL_WEBHOOK_TASK_QUEUE,
          workflowBundle: await workflowBundle(),
          activities: createWebhookActivities(deps),
        });
        // Even when a stop came in meanwhile: runUntil on a settled promise shuts the new worker down cleanly.
        log.info({ taskQueue: deps.config.TEMPORAL_TASK_QUEUE, webhookTaskQueue: deps.config.TEMPORAL_WEBHOOK_TASK_QUEUE }, 'worker running');
        await runTogether([worker, webhookWorker], stopRequested);
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

/** Route the SDK's own logs through pino once per process. */
export function installTemporalRuntimeLogger(logger: Logger): void {
  const log = logger.child({ component: 'temporal-sdk' });
  Runtime.install({
    // Our own handler stops the API, worker, Temporal and PostgreSQL in order; the SDK must not act on its own.
    shutdownSignals: [],
    logger: {
      log: (level, message, meta) => log[level === 'TRACE' ? 'trace' : (level.toLowerCase() as 'info')](meta ?? {}, message),
      trace: (message, meta) => log.trace(meta ?? {}, message),
      debug: (message, meta) => log.debug(meta ?? {}, message),
      info: (message, meta) => log.info(meta ?? {}, message),
      warn: (message, meta) => log.warn(meta ?? {}, message),
      error: (message, meta) => log.error(meta ?? {}, message),
    },
  });
}
