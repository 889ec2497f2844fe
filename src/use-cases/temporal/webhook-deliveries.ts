// Starting webhook deliveries from outside a workflow: the notify activity, and operators' redeliveries.
import type { Client } from '@temporalio/client';
import type {
  WebhookDeliveryInput,
  WebhookDeliveryWorkflow,
} from '../../../workflows/contracts/webhook-delivery.types.ts';
import type { PrismaClient } from '../../db/prisma.ts';
import {
  type CreatedMessage,
  createWebhookMessage,
  deliveryWorkflowId,
  type WebhookEventInput,
} from '../../webhooks/messages.ts';
import { startOrJoin } from './start-or-join.ts';

export type DeliveryStart = 'started' | 'running' | 'ended';

/**
 * Starts the delivery of a message to a URL. `once` (the notify step, possibly retried): a delivery that runs or
 * ran already is left alone. `again` (an operator's redelivery): a new run after the last one ended; a delivery
 * still running is left alone, since its schedule already covers the next attempt.
 */
export async function startWebhookDelivery(
  client: Client,
  taskQueue: string,
  input: WebhookDeliveryInput,
  mode: 'once' | 'again',
): Promise<DeliveryStart> {
  const workflowId = deliveryWorkflowId(input.messageId, input.url);
  const started = await startOrJoin<WebhookDeliveryWorkflow>(client, 'webhookDeliveryWorkflow', {
    workflowId,
    taskQueue,
    args: [input],
    workflowIdConflictPolicy: mode === 'once' ? 'USE_EXISTING' : 'FAIL',
    workflowIdReusePolicy: mode === 'once' ? 'REJECT_DUPLICATE' : 'ALLOW_DUPLICATE',
  });
  if (started) return 'started';
  return mode === 'once' ? 'ended' : 'running';
}

/**
 * Writes the event's message and starts one delivery workflow per target on the webhooks task queue, once: a repeat
 * finds the message and the deliveries it started.
 */
export async function notifyWebhookEvent(
  deps: { prisma: PrismaClient; client: Client; taskQueue: string },
  input: WebhookEventInput,
): Promise<CreatedMessage> {
  const message = await createWebhookMessage(deps.prisma, input);
  for (const target of message.targets) {
    await startWebhookDelivery(deps.client, deps.taskQueue, { messageId: message.messageId, url: target.url }, 'once');
  }
  return message;
}
