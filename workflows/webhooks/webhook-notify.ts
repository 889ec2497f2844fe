// The notify step, shared by every workflow that emits a webhook event: the message is written, and its first attempt
// to each target is made here, as local activities (no workflow and no task-queue round trip of its own: most
// receivers answer at once). A failed first attempt hands the rest of the schedule to a delivery workflow, so the
// emitter closes now and a day of retries never reaches back into it.
import { CancellationScope, log, patched, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { WebhookActivities } from '../../activities/webhook.activities.ts';
import type { CreatedMessage, WebhookEventInput, WebhookTarget } from '../../src/webhooks/messages.ts';
import { attemptDelivery } from './delivery-attempt.ts';
import { lighterTaskPatch } from '../patches.ts';

// Idempotent database work and a workflow start, retried for about an hour (counted: the SDK drops a local
// activity's schedule-to-close between retries).
const databaseSteps = {
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', maximumAttempts: 60 },
} as const;
const { prepareWebhookMessage, recordWebhookAttempt, handOverWebhook } =
  proxyLocalActivities<WebhookActivities>(databaseSteps);
// Runs recorded before lighterTaskPatch replay through the old step (never run again: the activity is gone).
const { notifyWebhooks } = proxyLocalActivities<{ notifyWebhooks(input: WebhookEventInput): Promise<unknown> }>(
  databaseSteps,
);
// 15 s of request plus reading the message and the secret; one try, since a second would be an unscheduled attempt.
const { sendWebhook } = proxyLocalActivities<WebhookActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 1 },
});

/** The first attempt to one target, logged; a failed one continues in a delivery workflow from the next. */
async function firstAttempt(messageId: string, target: WebhookTarget): Promise<void> {
  const scheduled = { messageId, url: target.url, index: 0, attempt: 1, workflowId: target.workflowId };
  const done = await attemptDelivery(
    { sendWebhook, recordWebhookAttempt },
    { ...scheduled, runId: workflowInfo().runId },
  );
  if (done.nextAttemptAt === null) return;
  await handOverWebhook({
    messageId,
    url: target.url,
    firstAttempt: 2,
    scheduleFrom: 1,
    nextAttemptAt: new Date(done.nextAttemptAt).toISOString(),
  });
}

/**
 * Delivers a written message (its first attempts, in parallel). Never throws, and runs even in a cancelled workflow
 * (a cancelled task ends failed, and its caller is told so).
 */
export async function deliver(message: CreatedMessage | null, event: string): Promise<void> {
  if (!message || message.targets.length === 0) return;
  try {
    await CancellationScope.nonCancellable(() =>
      Promise.all(message.targets.map((target) => firstAttempt(message.messageId, target))),
    );
  } catch (error) {
    // A notification must not change what the emitter did.
    log.warn('webhook not delivered', { event, messageId: message.messageId, error: (error as Error).message });
  }
}

/**
 * Writes the event's message and delivers it (see deliver). Never throws. `inline`: the emitter's run takes
 * lighterTaskPatch's branch (asked of the patch when not given).
 */
export async function notify(input: WebhookEventInput, inline = patched(lighterTaskPatch)): Promise<void> {
  let message: CreatedMessage | null = null;
  try {
    await CancellationScope.nonCancellable(async () => {
      if (inline) message = await prepareWebhookMessage(input);
      else await notifyWebhooks(input);
    });
  } catch (error) {
    log.warn('webhook event not notified', {
      event: input.event,
      subject: input.subject,
      error: (error as Error).message,
    });
    return;
  }
  await deliver(message, input.event);
}
