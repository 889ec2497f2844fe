// Activities of the generation workflow on its main task queue: thin wrappers over src/services/tasks. Money keys
// derive from the task id, so a retried activity never moves money twice.
import { ApplicationFailure } from '@temporalio/activity';
import type { Catalog } from '../src/catalog/catalog.ts';
import type { PrismaClient } from '../src/db/prisma.ts';
import type { GenerationRequest } from '../src/domain/generation-request.ts';
import { taskView, type TaskView } from '../src/generation/task-view.ts';
import { InsufficientFundsError, LedgerError } from '../src/services/ledger.ts';
import { admitTask, completeTask, failTask, markProcessing } from '../src/services/tasks.ts';
import { modelOf } from './catalog-lookup.ts';
import type { GeneratedOutputs } from './provider.activities.ts';
import { classifyFailures } from './failures.ts';

export interface GenerationActivityDeps {
  prisma: PrismaClient;
  catalog: Catalog;
}

export interface AdmitInput {
  taskId: string;
  accountId: string;
  request: GenerationRequest;
  /** Micro-USD as a decimal string: payloads are JSON, and JSON has no bigint. */
  costMicros: string;
  idempotencyKey: string | null;
}

/** What the admitTask activity did: reserved the cost and wrote the task row, or found the balance short. */
export type TaskAdmission =
  { outcome: 'admitted'; task: TaskView } | { outcome: 'insufficient_funds'; availableMicros: string };

export function createGenerationActivities(deps: GenerationActivityDeps) {
  return classifyFailures({
    async admitTask(input: AdmitInput): Promise<TaskAdmission> {
      try {
        const task = await admitTask(deps.prisma, { ...input, costMicros: BigInt(input.costMicros) });
        return { outcome: 'admitted', task: taskView(task) };
      } catch (error) {
        if (error instanceof InsufficientFundsError)
          return { outcome: 'insufficient_funds', availableMicros: error.available.toString() };
        // A refusal of the ledger (no balance row, a key reused) will not change on retry.
        if (error instanceof LedgerError) throw ApplicationFailure.nonRetryable(error.message, 'LedgerError');
        throw error;
      }
    },

    async markProcessing(taskId: string): Promise<TaskView> {
      return taskView(await markProcessing(deps.prisma, taskId));
    },

    async settleTask(input: { taskId: string; modelId: string } & GeneratedOutputs): Promise<TaskView> {
      return taskView(await completeTask(deps.prisma, modelOf(deps.catalog, input.modelId), input));
    },

    async failTask(input: { taskId: string; error: string }): Promise<TaskView | null> {
      const task = await failTask(deps.prisma, input);
      return task && taskView(task);
    },
  });
}

export type GenerationActivities = ReturnType<typeof createGenerationActivities>;
