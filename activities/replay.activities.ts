// The batch replay's activities: thin wrappers over src/orchestration/generations/replays.ts. A replay is admitted with the worker's
// Temporal client, by the same update-with-start as POST /generations, on the main task queue.
import { Context } from '@temporalio/activity';
import type { Catalog } from '../src/catalog/catalog.ts';
import type { Config } from '../src/config/config.ts';
import type { PrismaClient } from '../src/db/prisma.ts';
import { replayStatuses, replayTask, selectReplayCandidates } from '../src/orchestration/generations/replays.ts';
import type { ReplayCandidate, ReplayOutcome, ReplaySelection } from '../workflows/replay-batch.types.ts';
import { classifyFailures } from './failures.ts';

export interface ReplayActivityDeps {
  prisma: PrismaClient;
  config: Pick<Config, 'temporal' | 'inputs' | 'providers' | 'x402' | 'chains' | 'outputs'>;
  catalog: Catalog;
}

export function createReplayActivities(deps: ReplayActivityDeps) {
  return classifyFailures({
    async selectReplayTasks(selection: ReplaySelection): Promise<ReplayCandidate[]> {
      return selectReplayCandidates(deps.prisma, deps.catalog, selection);
    },

    async replayTask(input: { batchId: string; taskId: string }): Promise<ReplayOutcome> {
      const temporal = { client: Context.current().client, taskQueue: deps.config.temporal.taskQueue };
      return replayTask({ ...deps, temporal }, input);
    },

    async replayStatuses(replayIds: string[]): Promise<Record<string, 'pending' | 'completed' | 'failed'>> {
      return replayStatuses(deps.prisma, replayIds);
    },
  });
}

export type ReplayActivities = ReturnType<typeof createReplayActivities>;
