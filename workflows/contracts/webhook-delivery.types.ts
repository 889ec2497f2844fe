// The delivery workflow as its starters see it (the hand-over of a failed first attempt, operators' redeliveries).
// Types only, and nothing from activities/: the webhook activities import this, so importing back would close a cycle.
import type { AttemptOutcome } from '../../src/webhooks/send.ts';

export interface WebhookDeliveryInput {
  messageId: string;
  url: string;
  /** Attempt numbers continue across a hand-over and an operator's redeliveries. */
  firstAttempt?: number;
  /** Where in the schedule it starts (0, the immediate attempt, unless an emitter made that one). */
  scheduleFrom?: number;
  /** When its first attempt is due (ISO time), as the attempt before logged it; none: at once. */
  nextAttemptAt?: string;
}

export interface WebhookDeliveryResult {
  /** `exhausted`: every scheduled attempt failed. */
  outcome: Exclude<AttemptOutcome, 'failed'> | 'exhausted';
  attempts: number;
}

/** Started by name (`webhookDeliveryWorkflow`), on the main task queue. */
export type WebhookDeliveryWorkflow = (input: WebhookDeliveryInput) => Promise<WebhookDeliveryResult>;
