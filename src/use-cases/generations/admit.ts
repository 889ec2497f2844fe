// One admission for every payer (POST /generations with an API key or an x402 payment; genctl's replays): the request
// is checked and priced, a retry finds the task admitted first, the payer authorizes the price, and the task's
// workflow admits it by update-with-start. The answer is what the update returned, held until the task ends if asked.
import { KeyPolicyError } from '../../accounts/key-policy.ts';
import type { Catalog } from '../../catalog/catalog.ts';
import type { Config } from '../../config/config.ts';
import type { PrismaClient } from '../../db/prisma.ts';
import { ServiceUnavailableError, TooManyTasksError } from '../../domain/errors.ts';
import type { GenerationRequest, InputLayoutRequest } from '../../domain/generation-request.ts';
import type { EndedTasks } from '../../generations/ended-tasks.ts';
import { inputUrls, requestHash } from '../../generations/request.ts';
import { taskView, type TaskView } from '../../generations/task-view.ts';
import type { OutputRetention } from '../../generations/output-retention.ts';
import { InsufficientFundsError } from '../../ledger/ledger.ts';
import type { EarlierTask, PayerAdmission } from '../../payments/methods/payment-method.ts';
import { accessTokenOf, admissionOf, type Payer, type PaymentMethodDeps } from '../../payments/methods/registered.ts';
import { StoreUnavailableError } from '../../storage/object-store.ts';
import type { Storage } from '../../storage/storage.ts';
import { checkUploadInputs } from '../../uploads/uploads.ts';
import { webhookSecretOf } from '../../webhooks/secrets.ts';
import { type AdmissibleRequest, admissibleRequest, pricedAsAdmitted } from './admissible.ts';
import { earlierTask, pricedAndAuthorized } from './payer.ts';
import { heldUntilEnded, type HoldFor } from './read.ts';
import { generationInput } from './workflow-input.ts';
import { type AdmissionOutcome, executeAdmitUpdate, type TemporalDeps } from '../temporal/generation-workflows.ts';

export type { Payer } from '../../payments/methods/registered.ts';

export interface AdmissionDeps extends PaymentMethodDeps {
  prisma: PrismaClient;
  config: PaymentMethodDeps['config'] & Pick<Config, 'inputs' | 'providers' | 'outputs'>;
  catalog: Catalog;
  temporal: TemporalDeps;
  /** Where uploads live: an input URL naming one must be the caller's (without it, such URLs are downloaded). */
  storage?: Storage;
  /** Ended tasks already read: answered again without the database. */
  endedTasks?: EndedTasks;
}

export interface NewGeneration extends HoldFor {
  body: GenerationRequest | InputLayoutRequest;
  /** The failed task this one replays (genctl tasks replay). */
  replayOf?: string;
}

/** An admitted task: queued, its cost reserved (or its payment authorized). */
export interface QueuedGeneration {
  id: string;
  type: string;
  model: string;
  costMicros: bigint;
  createdAt: string;
}

/** What an x402 payer needs to follow its task without an account. */
export interface TaskAccess {
  /** Bearer token that reads this task, and nothing else. */
  accessToken: string;
  /** Signs the task's webhooks, when the request named a webhook_url. */
  webhookSecret: string | null;
}

export interface AdmittedGeneration {
  queued: QueuedGeneration;
  /** The task itself when it ended within the wait asked for. */
  ended?: TaskView;
  /** x402: how its payer follows the task; not once the task has started (see `answer`). */
  access?: TaskAccess;
}

/** A queued task whose workflow could not be reached: its row stands (charged at most once), only unconfirmed. */
const unconfirmedMessage =
  'The task is queued but could not be confirmed just now; retry the request with the same key (it is charged at most once).';

/** A payer at its cap of tasks in flight waits about as long as a short task takes. */
const payerBusyRetrySeconds = 10;

/** The task as admitted: its answer, its state as last known, and (x402) its access token when its row was read. */
interface Admitted {
  queued: QueuedGeneration;
  task: TaskView;
  accountId: string;
  webhookUrl: string | null;
  accessToken?: string;
}

const admittedRow = (row: EarlierTask, retention: OutputRetention): Admitted => ({
  queued: {
    id: row.id,
    type: row.type,
    model: row.model,
    costMicros: row.costReserved,
    createdAt: row.createdAt.toISOString(),
  },
  task: taskView(row, retention),
  accountId: row.accountId,
  webhookUrl: row.webhookUrl,
  accessToken: row.payment?.accessToken,
});

/** The token was made with the payment row: the admit update's answer (the task view) does not carry it. */
async function accessOf(deps: AdmissionDeps, admission: PayerAdmission, admitted: Admitted): Promise<TaskAccess> {
  const accessToken = admitted.accessToken ?? (await accessTokenOf(deps.prisma, admitted.queued.id));
  if (!accessToken) throw admission.unavailableError();
  const webhookSecret = admitted.webhookUrl ? await webhookSecretOf(deps.prisma, admitted.accountId) : null;
  return { accessToken, webhookSecret };
}

/**
 * The caller's answer: the queued task, how an x402 payer follows it, and the task once ended when asked to wait.
 * `handsAccess` false: the payment's signature is public once the task runs, so whoever repeats it gets no token.
 */
async function answer(
  deps: AdmissionDeps,
  request: NewGeneration,
  admission: PayerAdmission,
  admitted: Admitted,
  handsAccess = true,
): Promise<AdmittedGeneration> {
  const { queued } = admitted;
  const access = admission.handsAccess && handsAccess ? { access: await accessOf(deps, admission, admitted) } : {};
  if (request.waitMs === undefined) return { queued, ...access };
  const account = { id: admitted.accountId, kind: admission.accountKind };
  const hold = { taskId: queued.id, account, waitMs: request.waitMs, signal: request.signal };
  const waited = await heldUntilEnded(deps, hold, admitted.task);
  return { queued, ...access, ...(waited.ended ? { ended: waited.task } : {}) };
}

/** A task still queued was priced and paid when it was admitted: its payment is not verified again. */
const pricedAsAdmittedBefore = async (admission: PayerAdmission, priced: AdmissibleRequest) => ({
  priced,
  paidBy: await admission.authorize(priced, true),
});

/** Why a request was not admitted, as the domain error the API translates. */
function admissionRefusal(
  refused: Exclude<AdmissionOutcome, { outcome: 'admitted' }>,
  costMicros: bigint,
  admission: PayerAdmission,
) {
  switch (refused.outcome) {
    case 'insufficient_funds':
      return new InsufficientFundsError(costMicros, BigInt(refused.availableMicros));
    case 'conflict':
      return admission.reusedError();
    case 'payer_busy':
      return new TooManyTasksError(
        `This payer already has ${refused.limit} tasks queued or running; retry when one has ended. Nothing was charged.`,
        payerBusyRetrySeconds,
      );
    case 'policy_refused':
      return new KeyPolicyError(refused.code, refused.message, { details: refused.details });
    case 'unavailable':
      return admission.unavailableError();
  }
}

/**
 * Reserves the request's cost (or takes its verified x402 payment) and queues its task; answers once both are
 * durable. A retry (the same Idempotency-Key, or the same payment) answers the original admission, charging nothing
 * more. With `waitMs`, the answer is held until the task ends or the wait is up.
 */
export async function admitGeneration(
  deps: AdmissionDeps,
  request: NewGeneration,
  payer: Payer,
): Promise<AdmittedGeneration> {
  const declared = admissibleRequest(deps, request.body);
  const admission = admissionOf(deps, payer);
  if (deps.storage)
    await checkUploadInputs({ ...deps, storage: deps.storage }, admission.uploadsOwner, inputUrls(declared.request));
  const hash = requestHash(declared.request);
  const earlier = await earlierTask(deps.prisma, admission, hash);
  // Still queued, its admission may not have reached the workflow (Temporal died after the row was committed): the
  // update is sent again, and the workflow adopts the row. A task that has started or ended answers from its row,
  // without its access token or webhook secret: a repeat of its payment then is anyone's who saw the signature.
  if (earlier && earlier.status !== 'queued')
    return answer(deps, request, admission, admittedRow(earlier, deps.config.outputs), false);
  // Every task stores outputs: while the store is down none is admitted (503, nothing charged), as while Temporal is.
  if (deps.storage && !(await deps.storage.available())) throw new StoreUnavailableError();
  // The price asked for is the measured inputs' (a model priced on their length): a payment must cover them.
  const { priced, paidBy } = earlier
    ? await pricedAsAdmittedBefore(admission, pricedAsAdmitted(declared, earlier))
    : await pricedAndAuthorized(deps, admission, declared);

  const replayOf = request.replayOf ? { replayOf: request.replayOf } : {};
  const input = generationInput(deps.config, { ...paidBy, requestHash: hash, ...replayOf }, priced);
  const outcome = await executeAdmitUpdate(deps.temporal, input, { accountKind: admission.accountKind });
  if (outcome.outcome === 'admitted') {
    // The update answers the task as admitted: its row is not read again (a payment's access token aside).
    const { task } = outcome;
    if (earlier) return answer(deps, request, admission, { ...admittedRow(earlier, deps.config.outputs), task });
    const queued = { id: task.id, type: task.type, model: task.model, costMicros: priced.costMicros };
    const webhookUrl = input.request.webhook_url ?? null;
    const admitted = {
      queued: { ...queued, createdAt: task.created_at },
      task,
      accountId: input.accountId,
      webhookUrl,
    };
    return answer(deps, request, admission, admitted);
  }
  if (earlier) throw new ServiceUnavailableError(unconfirmedMessage);
  throw admissionRefusal(outcome, priced.costMicros, admission);
}
