// Activities of the generation workflow: thin wrappers over src/services/tasks and the providers. Money keys
// derive from the task id, so a retried activity never moves money twice.
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Catalog } from '../src/catalog/catalog.ts';
import type { Config } from '../src/config.ts';
import type { PrismaClient } from '../src/db/prisma.ts';
import type { GenerationRequest } from '../src/generation/request.ts';
import { taskView, type TaskView } from '../src/generation/task-view.ts';
import { fetchInput, InputFetchError } from '../src/providers/fetch-input.ts';
import { runnerFor } from '../src/providers/registry.ts';
import { ProviderRefusal, type ProviderResult, ProviderRetryLater } from '../src/providers/types.ts';
import { InsufficientFundsError, LedgerError } from '../src/services/ledger.ts';
import { admitTask, completeTask, failTask, markProcessing } from '../src/services/tasks.ts';
import type { Storage } from '../src/storage/local-storage.ts';

export interface GenerationActivityDeps {
  prisma: PrismaClient;
  catalog: Catalog;
  storage: Storage;
  config: Config;
}

export interface AdmitInput {
  taskId: string;
  accountId: string;
  request: GenerationRequest;
  /** Micro-USD as a decimal string: payloads are JSON, and JSON has no bigint. */
  costMicros: string;
  idempotencyKey: string | null;
}

export type AdmitOutcome =
  | { outcome: 'admitted'; task: TaskView }
  | { outcome: 'insufficient_funds'; availableMicros: string };

export interface GeneratedOutputs {
  outputs: string[];
  usage?: ProviderResult['usage'];
}

/** A permanent failure whose message the caller may read; the workflow refunds and fails the task. */
const refusal = (message: string) => ApplicationFailure.nonRetryable(message, 'ProviderRefusal');

export function createGenerationActivities(deps: GenerationActivityDeps) {
  const modelOf = (id: string) => {
    const model = deps.catalog.get(id);
    if (!model) throw refusal(`model ${id} is no longer in the catalog`);
    return model;
  };

  return {
    async admitTask(input: AdmitInput): Promise<AdmitOutcome> {
      try {
        const task = await admitTask(deps.prisma, { ...input, costMicros: BigInt(input.costMicros) });
        return { outcome: 'admitted', task: taskView(task) };
      } catch (error) {
        if (error instanceof InsufficientFundsError) return { outcome: 'insufficient_funds', availableMicros: error.available.toString() };
        // A refusal of the ledger (no balance row, a key reused) will not change on retry.
        if (error instanceof LedgerError) throw ApplicationFailure.nonRetryable(error.message, 'LedgerError');
        throw error;
      }
    },

    async markProcessing(taskId: string): Promise<TaskView> {
      return taskView(await markProcessing(deps.prisma, taskId));
    },

    /** Runs the model and copies what it made into our storage (provider URLs expire; local files are ours). */
    async generateOutputs(input: { taskId: string; modelId: string; request: GenerationRequest }): Promise<GeneratedOutputs> {
      const model = modelOf(input.modelId);
      const engine = runnerFor(deps.config, model);
      if (!engine) throw refusal(`${model.id} cannot run on this server`);
      let result: ProviderResult;
      const activity = Context.current();
      // Heartbeats let Temporal notice a dead worker within the heartbeat timeout, not the model's whole timeout;
      // they carry the latest checkpoint (an upstream job id) to the next attempt.
      let checkpoint: unknown = activity.info.heartbeatDetails;
      const heartbeat = setInterval(() => activity.heartbeat(checkpoint), 1_000);
      try {
        result = await engine(input.request, model, {
          fetchInput: (url) => fetchInput(url, { maxBytes: deps.config.INPUT_MAX_BYTES, timeoutMs: 30_000, allowPrivate: deps.config.ALLOW_PRIVATE_INPUT_URLS }),
          lastCheckpoint: activity.info.heartbeatDetails,
          checkpoint: (details) => {
            checkpoint = details;
            activity.heartbeat(details);
          },
          signal: activity.cancellationSignal,
          // The task itself was cancelled, or its workflow moved on without this attempt (NOT_FOUND): nobody will
          // resume the upstream job. A timed-out attempt or a worker shutdown leaves it for the next attempt.
          cancelRequested: () => activity.cancellationDetails?.cancelRequested === true || activity.cancellationDetails?.notFound === true,
        });
      } catch (error) {
        if (error instanceof ProviderRefusal || error instanceof InputFetchError) throw refusal(error.message);
        if (error instanceof ProviderRetryLater) throw ApplicationFailure.create({ message: error.message, nextRetryDelay: error.delayMs });
        throw error;
      } finally {
        clearInterval(heartbeat);
      }
      const outputs = await Promise.all(result.files.map((file, index) =>
        deps.storage.put(`${input.taskId}/output-${index}.${file.extension}`, file.data)));
      return { outputs, usage: result.usage };
    },

    async settleTask(input: { taskId: string; modelId: string } & GeneratedOutputs): Promise<TaskView> {
      return taskView(await completeTask(deps.prisma, modelOf(input.modelId), input));
    },

    async failTask(input: { taskId: string; error: string }): Promise<TaskView | null> {
      const task = await failTask(deps.prisma, input);
      return task && taskView(task);
    },
  };
}

export type GenerationActivities = ReturnType<typeof createGenerationActivities>;
