// The delivery workflow as its starters see it (the notify activity, operators' redeliveries). Types only, and
// nothing from activities/: the notify activity imports this, so importing back would close a cycle.
import type { AttemptOutcome } from '../../src/webhooks/send.ts';

export interface WebhookDeliveryInput {
  messageId: string;
  url: string;
  /** Attempt numbers continue across an operator's redeliveries. */
  firstAttempt?: number;
}

export interface WebhookDeliveryResult {
  /** `exhausted`: every scheduled attempt failed. */
  outcome: Exclude<AttemptOutcome, 'failed'> | 'exhausted';
  attempts: number;
}

/** Started by name (`webhookDeliveryWorkflow`), on the webhooks task queue. */
export type WebhookDeliveryWorkflow = (input: WebhookDeliveryInput) => Promise<WebhookDeliveryResult>;
