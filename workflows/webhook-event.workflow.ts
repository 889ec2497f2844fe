// An event to notify (generation.completed, generation.failed, deposit.credited): writes its message, then starts
// one delivery workflow per target on the webhooks task queue and ends. Emitters start it as an abandoned child
// (startWebhookEvent), so their own workflow closes at once and nothing about delivery reaches their result.
// The SDK's shared error classes (deterministic code the workflow package itself uses) do not all come re-exported.
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { CancellationScope, log, ParentClosePolicy, proxyActivities, startChild } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhook.activities.ts';
import type { WebhookEventInput } from '../src/webhooks/messages.ts';
import { webhookDeliveryWorkflow } from './webhook-delivery.workflow.ts';

const { createWebhookMessage } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '10 seconds', retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

export async function webhookEventWorkflow(input: WebhookEventInput): Promise<{ messageId: string; targets: string[] }> {
  const message = await createWebhookMessage(input);
  for (const target of message.targets) {
    try {
      await startChild(webhookDeliveryWorkflow, {
        workflowId: target.workflowId,
        taskQueue: message.taskQueue,
        args: [{ messageId: message.messageId, url: target.url }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
      });
    } catch (error) {
      // Already delivering this message to this URL (this event was emitted again): one delivery is enough.
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }
  return { messageId: message.messageId, targets: message.targets.map((target) => target.url) };
}

/**
 * Step "notify" of an emitting workflow: starts the event's workflow (id `<emitter's workflow id>:<event>`) and
 * returns once it has started. Never throws: a notification must not change what the emitter did.
 */
export async function startWebhookEvent(workflowId: string, input: WebhookEventInput): Promise<void> {
  try {
    // Even in a cancelled workflow: a cancelled task ends failed, and its caller is told so.
    await CancellationScope.nonCancellable(() => startChild(webhookEventWorkflow, {
      workflowId: `${workflowId}:${input.event}`,
      args: [input],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    }));
  } catch (error) {
    log.warn('webhook event not started', { event: input.event, subject: input.subject, error: (error as Error).message });
  }
}
