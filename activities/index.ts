import { createSystemActivities, type SystemActivityDeps } from './system.activities.ts';

export type ActivityDeps = SystemActivityDeps;

/** Every activity the worker registers, built from its dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createSystemActivities(deps),
  };
}
