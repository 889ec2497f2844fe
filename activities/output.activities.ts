// The output retention sweep's activity: a thin wrapper over src/generations/expired-outputs. Idempotent: a retried
// page finds the tasks it finished already marked, and a folder already emptied is no error.
import { deleteExpiredOutputs, type ExpiredOutputsDeps } from '../src/generations/expired-outputs.ts';
import { classifyFailures } from './failures.ts';

export type OutputActivityDeps = ExpiredOutputsDeps;

export function createOutputActivities(deps: OutputActivityDeps) {
  return classifyFailures({
    async deleteExpiredOutputs(input: { limit: number }): Promise<{ deleted: string[] }> {
      return deleteExpiredOutputs(deps, input.limit);
    },
  });
}

export type OutputActivities = ReturnType<typeof createOutputActivities>;
