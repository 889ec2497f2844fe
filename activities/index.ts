import { createGenerationActivities, type GenerationActivityDeps } from './generation.activities.ts';
import { createProviderActivities, type ProviderActivityDeps } from './provider.activities.ts';
import { createSystemActivities, type SystemActivityDeps } from './system.activities.ts';

export type ActivityDeps = SystemActivityDeps & GenerationActivityDeps & ProviderActivityDeps;

/** The activities of the main task queue: database steps, built from their dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createSystemActivities(deps),
    ...createGenerationActivities(deps),
  };
}

/** The activities of each provider's task queue: the calls to providers. */
export { createProviderActivities };
