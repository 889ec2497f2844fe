// The generation workflow's contract: its input, the admit update, the state query and the upstream callback signal,
// and the task errors callers match. The api (src/use-cases) imports this, never the workflow body; the
// generation activities take their input and answer types from here, so nothing here imports from activities/.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { GenerationRequest } from '../../src/domain/generation-request.ts';
import type { PaymentAuthorization } from '../../src/payments/methods/authorizations.ts';
import type { TaskView } from '../../src/generations/task-view.ts';
import type { KeyPolicyCode } from '../../src/accounts/key-policy.ts';

/** Sent by the api when an upstream's verified callback says a job ended: the workflow checks it at once. */
export const upstreamCallbackSignal = defineSignal<[{ jobId: string }]>('upstreamCallback');

/** The admitTask activity's input: what the task row is made of. */
export interface AdmitInput {
  taskId: string;
  accountId: string;
  request: GenerationRequest;
  /** Micro-USD as a decimal string: payloads are JSON, and JSON has no bigint. */
  costMicros: string;
  idempotencyKey: string | null;
  /** Paid by a method that authorizes at admission (x402, verified by the api): nothing is reserved. */
  payment?: PaymentAuthorization;
  /** Seconds of the media inputs the price depends on, measured by the api (the price follows them). */
  inputSeconds?: number;
  /** The failed task this one replays (genctl tasks replay). */
  replayOf?: string;
  /** The API key that asked for it: its policy and budget are checked where its cost is reserved. */
  apiKeyId?: string;
}

/** What the admitTask activity did: wrote the task row (its cost reserved, or paid), or why it would not. */
export type TaskAdmission =
  // `processing`: the task as admission left it, marked processing right after it committed queued (not for the api).
  | { outcome: 'admitted'; task: TaskView; processing?: TaskView }
  | { outcome: 'insufficient_funds'; availableMicros: string }
  | { outcome: 'payer_busy'; limit: number }
  // The key's policy (or a key above it) refused it: budget, model, type or cost; the API's code and details.
  | { outcome: 'policy_refused'; code: KeyPolicyCode; message: string; details: Record<string, unknown> };

export interface GenerationInput extends AdmitInput {
  modelId: string;
  requestHash: string;
  timeoutSeconds: number;
  /**
   * How long the provider call may wait for a slot on its provider's queue (its worker's *_CONCURRENCY), apart from
   * the model's timeout. Absent (tasks started before it): the wait counts against the model's timeout.
   */
  queueTimeoutSeconds?: number;
  /** The providers of the model's fallback routes, in catalog order (route 1, 2, …): each has its own task queue. */
  fallbackProviders?: string[];
  /**
   * The shape the starter asks the workflow to run in, a version carried by the input instead of a patch (below):
   * from lighterTaskShape, lighterTaskPatch's branch without calling patched(); from earlyAdoptionShape, the early look
   * for a lost update's row. Absent (runs started earlier): the patch decides, and the look waits the whole timeout.
   */
  shape?: number;
}

/**
 * The generation input's `shape` that takes the lighter-task patch's branch without asking the patch. A patch costs
 * every run a marker and an upsert of TemporalChangeVersion (a visibility write): on the path every task takes, the
 * starter says which shape to run; runs started without one (before, or by an older api) still ask the patch.
 */
export const lighterTaskShape = 2;
/** From this shape on, a run still waiting for its admission after a short while looks for a row a lost update left. */
export const earlyAdoptionShape = 3;
/** The shape admission starts generations with: the latest. */
export const generationShape = earlyAdoptionShape;
/** Whether a run was started with `shape` or a later one (none: before shapes). */
export const startedWithShape = (input: { shape?: number }, shape: number): boolean => (input.shape ?? 0) >= shape;

/** The admit update's answer: the admitTask activity's, or a conflict (same Idempotency-Key, another body). */
export type AdmitUpdateResult = TaskAdmission | { outcome: 'conflict' };

/** The `error` of a task ended by a cancel (POST /generations/{id}/cancel, `genctl tasks cancel`): callers match it. */
export const cancelledError = 'cancelled';
/** The `error` of a task whose admission committed its row but never answered (reported, released, not charged). */
export const admissionFailedError = 'The generation could not be admitted. You have not been charged.';

export const admitUpdate = defineUpdate<AdmitUpdateResult, [{ requestHash: string }]>('admit');
// For operators (Web UI, `temporal workflow query`): the task as this workflow holds it. The api reads the row.
export const stateQuery = defineQuery<TaskView | null>('state');

/** The workflow's signature (`generationWorkflow`, workflow id = task id): the task as it ended, if admitted. */
export type GenerationWorkflow = (input: GenerationInput) => Promise<TaskView | null>;
