// The client-side steps the worker's activities run (their WorkflowStarter, activities/workflow-starter.ts), each
// with the asking activity's client; src/worker.ts builds them. Grouped by what they need, so a test builds one part.
import type { Client } from '@temporalio/client';
import type { Config } from '../../config/config.ts';
import type { PrismaClient } from '../../db/prisma.ts';
import type { DepositInput } from '../../../workflows/contracts/deposit.types.ts';
import type { ReconcileInput } from '../../../workflows/contracts/task-reconciler.types.ts';
import type { WebhookEventInput } from '../../webhooks/messages.ts';
import { startDepositWorkflow } from './deposit-workflows.ts';
import type { AdmissionDeps } from '../generations/admit.ts';
import { replayTask } from '../generations/replays.ts';
import { reconcileQueuedTasks, releaseClosedTasks } from '../generations/task-reconciler.ts';
import { notifyWebhookEvent, startWebhookDelivery } from './webhook-deliveries.ts';
import type { WebhookDeliveryInput } from '../../../workflows/contracts/webhook-delivery.types.ts';
import { paymentMethods, type PaymentMethods } from '../../payments/methods/registered.ts';

interface StarterDeps {
  prisma: PrismaClient;
  config: Pick<Config, 'temporal' | 'outputs'>;
  /** The worker's ways to pay, where it registers its own (else this build's). */
  payments?: PaymentMethods;
}

/** Deposit workflows on the main task queue (the watcher's finds). */
export const depositStarter = (deps: Pick<StarterDeps, 'config'>) => ({
  startDeposit: (client: Client, input: DepositInput) =>
    startDepositWorkflow({ client, taskQueue: deps.config.temporal.taskQueue }, input),
});

/**
 * Webhook deliveries on the main task queue: whole schedules for events an activity emits (budget alerts), the rest
 * of one after a workflow's own first attempt failed.
 */
export const webhookStarter = (deps: StarterDeps) => ({
  notifyWebhook: (client: Client, input: WebhookEventInput) =>
    notifyWebhookEvent({ prisma: deps.prisma, client, taskQueue: deps.config.temporal.taskQueue }, input),
  handOverWebhook: async (client: Client, input: WebhookDeliveryInput) => {
    await startWebhookDelivery(client, deps.config.temporal.taskQueue, input, 'once');
  },
});

/** Replays, admitted on the main task queue with the worker's admission dependencies. */
export const replayStarter = (deps: Omit<AdmissionDeps, 'temporal'> & { config: Pick<Config, 'temporal'> }) => ({
  replayTask: (client: Client, input: { batchId: string; taskId: string }) =>
    replayTask({ ...deps, temporal: { client, taskQueue: deps.config.temporal.taskQueue } }, input),
});

/** The task reconciler's passes. */
export const reconcilerStarter = (deps: StarterDeps) => {
  const reconciler = (client: Client) => ({
    prisma: deps.prisma,
    client,
    taskQueue: deps.config.temporal.taskQueue,
    retention: deps.config.outputs,
    payments: deps.payments ?? paymentMethods,
  });
  return {
    reconcileQueuedTasks: (client: Client, input: ReconcileInput) => reconcileQueuedTasks(reconciler(client), input),
    releaseClosedTasks: (client: Client, input: ReconcileInput) => releaseClosedTasks(reconciler(client), input),
  };
};

/** Every step, for the worker's activities. */
export const createWorkerStarter = (deps: Parameters<typeof replayStarter>[0] & StarterDeps) => ({
  ...depositStarter(deps),
  ...webhookStarter(deps),
  ...replayStarter(deps),
  ...reconcilerStarter(deps),
});
