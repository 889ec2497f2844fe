// What the activities ask of the Temporal client side: starting deposits, webhook deliveries and replays, and the
// reconciler's passes. The worker's composition (src/worker.ts) gives it from src/use-cases/temporal, so activities start
// no workflow themselves and never import the client side. Each step runs with the asking activity's client.
import type { Client } from '@temporalio/client';
import type { CreatedMessage, WebhookEventInput } from '../src/webhooks/messages.ts';
import type { DepositInput } from '../workflows/contracts/deposit.types.ts';
import type { WebhookDeliveryInput } from '../workflows/contracts/webhook-delivery.types.ts';
import type { ReplayOutcome } from '../workflows/contracts/replay-batch.types.ts';
import type { ReconcileInput, ReconcileReport } from '../workflows/contracts/task-reconciler.types.ts';

export interface WorkflowStarter {
  /** Starts the transaction's deposit workflow unless one runs or ran; answers its workflow id. */
  startDeposit(client: Client, input: DepositInput): Promise<string>;
  /** Writes the event's message and starts one delivery workflow per target, once: a repeat finds both. */
  notifyWebhook(client: Client, input: WebhookEventInput): Promise<CreatedMessage>;
  /** Starts the delivery workflow that continues a target's schedule after the emitter's first attempt, once. */
  handOverWebhook(client: Client, input: WebhookDeliveryInput): Promise<void>;
  /** Admits the replay of one failed task by the same update-with-start as POST /generations. */
  replayTask(client: Client, input: { batchId: string; taskId: string }): Promise<ReplayOutcome>;
  /** The reconciler's pass over tasks still queued: admitted again, or released and failed. */
  reconcileQueuedTasks(client: Client, input: ReconcileInput): Promise<ReconcileReport>;
  /** The reconciler's pass over tasks whose workflow closed: released and failed. */
  releaseClosedTasks(client: Client, input: ReconcileInput): Promise<ReconcileReport>;
}
