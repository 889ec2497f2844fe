import { createDepositActivities, type DepositActivityDeps } from './deposit.activities.ts';
import { createGenerationActivities, type GenerationActivityDeps } from './generation.activities.ts';
import { createOAuthActivities, type OAuthActivityDeps } from './oauth.activities.ts';
import { createOutputActivities, type OutputActivityDeps } from './output.activities.ts';
import { createProviderActivities, type ProviderActivityDeps } from './provider.activities.ts';
import { createReplayActivities, type ReplayActivityDeps } from './replay.activities.ts';
import { createSystemActivities, type SystemActivityDeps } from './system.activities.ts';
import { createTopUpActivities, type TopUpActivityDeps } from './top-up.activities.ts';
import { createTaskReconcilerActivities, type TaskReconcilerActivityDeps } from './task-reconciler.activities.ts';
import { createUploadActivities, type UploadActivityDeps } from './upload.activities.ts';
import { createWebhookActivities, type WebhookActivityDeps } from './webhook.activities.ts';

export type ActivityDeps = SystemActivityDeps &
  GenerationActivityDeps &
  ProviderActivityDeps &
  WebhookActivityDeps &
  DepositActivityDeps &
  TaskReconcilerActivityDeps &
  TopUpActivityDeps &
  ReplayActivityDeps &
  UploadActivityDeps &
  OutputActivityDeps &
  OAuthActivityDeps;

/** The activities of the main task queue: database steps and chain reads, built from their dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createSystemActivities(deps),
    ...createGenerationActivities(deps),
    ...createWebhookActivities(deps),
    ...createDepositActivities(deps),
    ...createTaskReconcilerActivities(deps),
    ...createTopUpActivities(deps),
    ...createReplayActivities(deps),
    ...createUploadActivities(deps),
    ...createOutputActivities(deps),
    ...createOAuthActivities(deps),
  };
}

/** The activities of each provider's task queue (the calls to providers) and of the webhooks queue. */
export { createProviderActivities, createWebhookActivities };
