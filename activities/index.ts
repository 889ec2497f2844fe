import { createGenerationActivities, type GenerationActivityDeps } from './generation.activities.ts';
import { createSystemActivities, type SystemActivityDeps } from './system.activities.ts';
import { createWebhookActivities, type WebhookActivityDeps } from './webhook.activities.ts';

export type ActivityDeps = SystemActivityDeps & GenerationActivityDeps & WebhookActivityDeps;

/** Every activity the worker registers, built from its dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createSystemActivities(deps),
    ...createGenerationActivities(deps),
    ...createWebhookActivities(deps),
  };
}
