// The batch replay's activities: the selection and the replays' statuses are reads (src/generations); a replay is
// admitted by the starter with the worker's Temporal client, by the same update-with-start as POST /generations.
import { Context } from '@temporalio/activity';
import type { Catalog } from '../src/catalog/catalog.ts';
import type { Config } from '../src/config/config.ts';
import type { PrismaClient } from '../src/db/prisma.ts';
import { replayStatuses, selectReplayCandidates } from '../src/generations/replay-selection.ts';
import type { ReplayCandidate, ReplayOutcome, ReplaySelection } from '../workflows/contracts/replay-batch.types.ts';
import type { WorkflowStarter } from './workflow-starter.ts';
import { classifyFailures } from './failures.ts';

export interface ReplayActivityDeps {
  prisma: PrismaClient;
  config: Pick<Config, 'temporal' | 'inputs' | 'providers' | 'x402' | 'chains' | 'outputs'>;
  catalog: Catalog;
  starter: Pick<WorkflowStarter, 'replayTask'>;
}

export function createReplayActivities(deps: ReplayActivityDeps) {
  return classifyFailures({
    async selectReplayTasks(selection: ReplaySelection): Promise<ReplayCandidate[]> {
      return selectReplayCandidates(deps.prisma, deps.catalog, selection);
    },

    async replayTask(input: { batchId: string; taskId: string }): Promise<ReplayOutcome> {
      return deps.starter.replayTask(Context.current().client, input);
    },

    async replayStatuses(replayIds: string[]): Promise<Record<string, 'pending' | 'completed' | 'failed'>> {
      return replayStatuses(deps.prisma, replayIds);
    },
  });
}

export type ReplayActivities = ReturnType<typeof createReplayActivities>;
