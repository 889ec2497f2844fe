// Creating and reading generation tasks: what POST /generations and GET /generations/{id} mean, whatever the
// transport. Refusals are domain errors; the API translates them in one place.
import type { Catalog, CatalogModel } from '../../catalog/catalog.ts';
import { priceRequest } from '../../catalog/pricing.ts';
import { ModelRequestError, resolveModel } from '../../catalog/resolve.ts';
import type { Config } from '../../config/config.ts';
import type { PrismaClient } from '../../db/prisma.ts';
import {
  IdempotencyKeyReusedError,
  NotFoundError,
  ServiceUnavailableError,
  TooManyTasksError,
} from '../../domain/errors.ts';
import type { GenerationRequest, InputLayoutRequest } from '../../domain/generation-request.ts';
import { measureInputs } from '../../generations/measured-inputs.ts';
import { foldMessages, inputUrls, missingInputs, normaliseLayout, requestHash } from '../../generations/request.ts';
import { taskView, type TaskView } from '../../generations/task-view.ts';
import { canRunSomeRoute } from '../../providers/registry.ts';
import type { AccountKind, Task } from '../../generated/prisma/client.ts';
import { admitGeneration, type AdmissionOutcome, type TemporalDeps } from './workflow-client.ts';
import type { GenerationInput } from '../../../workflows/generation.types.ts';
import { derivedId, newId } from '../../domain/ids.ts';
import { checkUploadInputs } from '../../uploads/uploads.ts';
import type { Storage } from '../../storage/local-storage.ts';
import type { EndedTasks } from '../../generations/ended-tasks.ts';
import { InsufficientFundsError } from '../../payments/ledger.ts';
import { findTaskByIdempotencyKey, findTaskForAccount, storedRequest } from '../../generations/tasks.ts';

export interface GenerationServiceDeps {
  prisma: PrismaClient;
  config: Pick<Config, 'inputs' | 'providers' | 'x402' | 'chains'>;
  catalog: Catalog;
  temporal: TemporalDeps;
  /** Where uploads live: an input URL naming one must be the caller's (without it, such URLs are downloaded). */
  storage?: Storage;
  /** Ended tasks already read: answered again without the database. */
  endedTasks?: EndedTasks;
}

export interface NewGeneration {
  accountId: string;
  /** Shown in the task workflow's search attributes and summary. */
  accountKind: AccountKind;
  body: GenerationRequest | InputLayoutRequest;
  idempotencyKey: string | null;
  /** The failed task this one replays (genctl tasks replay). */
  replayOf?: string;
}

/** An admitted task: queued, its cost reserved. */
export interface QueuedGeneration {
  id: string;
  type: string;
  model: string;
  costMicros: bigint;
  createdAt: string;
}

/** A queued task whose workflow could not be reached: its row stands (charged at most once), only unconfirmed. */
export const unconfirmedMessage =
  'The task is queued but could not be confirmed just now; retry the request with the same key (it is charged at most once).';

/** A payer at its cap of tasks in flight waits about as long as a short task takes. */
const payerBusyRetrySeconds = 10;

/** The same account and key always name the same task, so a retried POST joins the first one's workflow. */
const taskIdFor = (accountId: string, idempotencyKey: string | null) =>
  idempotencyKey ? derivedId('gen', `${accountId}\n${idempotencyKey}`) : newId('gen');

/** Validates, prices and checks the request against the catalog and this server's providers. */
export function admissibleRequest(
  deps: Pick<GenerationServiceDeps, 'config' | 'catalog'>,
  body: NewGeneration['body'],
) {
  const request = foldMessages(normaliseLayout(body, (id) => deps.catalog.get(id)?.type));
  const model = resolveModel(deps.catalog, request);
  const missing = missingInputs(request, model);
  if (missing.length > 0) throw new ModelRequestError(missing);
  if (!canRunSomeRoute(deps.config.providers, model)) {
    const message = `${model.id} is not available on this server (its provider is not configured here)`;
    throw new ModelRequestError([{ field: 'model', message }]);
  }
  // Priced as declared: measuredRequest prices a model whose price follows its inputs' length on what they measure.
  const inputSeconds = undefined as number | undefined;
  return { request, model, costMicros: priceRequest(model, request).micros, hash: requestHash(request), inputSeconds };
}

export type AdmissibleRequest = ReturnType<typeof admissibleRequest>;

/**
 * A model priced on its inputs' length is priced on the length measured now, not the declared `duration` (400 naming
 * the field when an input cannot be measured or is too long). The request hash stays the caller's: a retry matches.
 */
export async function measuredRequest(
  deps: Pick<GenerationServiceDeps, 'config' | 'storage'>,
  admissible: AdmissibleRequest,
): Promise<AdmissibleRequest> {
  const { model, request } = admissible;
  if (!model.measured_inputs) return admissible;
  const inputSeconds = await measureInputs(model, request, {
    maxBytes: deps.config.inputs.maxBytes,
    timeoutMs: deps.config.inputs.measureTimeoutSeconds * 1000,
    allowPrivate: deps.config.inputs.allowPrivateUrls,
    storage: deps.storage,
  });
  if (inputSeconds === undefined) return admissible;
  return {
    ...admissible,
    inputSeconds,
    costMicros: priceRequest(model, { ...request, input_seconds: inputSeconds }).micros,
  };
}

/** A task admitted earlier under the same Idempotency-Key; another request under that key is refused. */
async function earlierAdmission(deps: GenerationServiceDeps, input: NewGeneration, hash: string) {
  if (!input.idempotencyKey) return null;
  const earlier = await findTaskByIdempotencyKey(deps.prisma, input.accountId, input.idempotencyKey);
  if (!earlier) return null;
  if (requestHash(storedRequest(earlier)) !== hash) throw new IdempotencyKeyReusedError();
  return earlier;
}

const admittedEarlier = ({ id, type, model, costReserved, createdAt }: Task): QueuedGeneration => ({
  id,
  type,
  model,
  costMicros: costReserved,
  createdAt: createdAt.toISOString(),
});

/** The providers the workflow may hand the task to, in order, when the model's own fails (catalog `fallbacks`). */
export const fallbackProvidersOf = (model: CatalogModel): Pick<GenerationInput, 'fallbackProviders'> =>
  model.fallbacks ? { fallbackProviders: model.fallbacks.map((route) => route.provider) } : {};

/** How long the model may run, and (apart from that) how long the task may wait for a provider slot. */
export const timeoutsOf = (
  config: Pick<Config, 'providers'>,
  model: CatalogModel,
): Pick<GenerationInput, 'timeoutSeconds' | 'queueTimeoutSeconds'> => ({
  timeoutSeconds: model.timeout_seconds,
  queueTimeoutSeconds: config.providers.queueTimeoutSeconds,
});

/** The workflow input of a request: the same account and Idempotency-Key always give the same task and workflow. */
export function generationInput(
  config: Pick<Config, 'providers'>,
  input: NewGeneration,
  admissible: AdmissibleRequest,
): GenerationInput {
  return {
    taskId: taskIdFor(input.accountId, input.idempotencyKey),
    accountId: input.accountId,
    request: admissible.request,
    costMicros: admissible.costMicros.toString(),
    idempotencyKey: input.idempotencyKey,
    modelId: admissible.model.id,
    requestHash: admissible.hash,
    ...timeoutsOf(config, admissible.model),
    ...fallbackProvidersOf(admissible.model),
    ...(admissible.inputSeconds !== undefined ? { inputSeconds: admissible.inputSeconds } : {}),
    ...(input.replayOf ? { replayOf: input.replayOf } : {}),
  };
}

/**
 * Reserves the request's cost and queues its task; answers once both are durable. A retry under the same
 * Idempotency-Key answers the original admission and charges nothing more.
 */
export async function createGeneration(deps: GenerationServiceDeps, input: NewGeneration): Promise<QueuedGeneration> {
  const declared = admissibleRequest(deps, input.body);
  if (deps.storage)
    await checkUploadInputs({ ...deps, storage: deps.storage }, input.accountId, inputUrls(declared.request));
  const earlier = await earlierAdmission(deps, input, declared.hash);
  // Still queued, its admission may not have reached the workflow (Temporal died after the row was committed): the
  // update is sent again, and the workflow adopts the row. A task that has started or ended answers from its row.
  if (earlier && earlier.status !== 'queued') return admittedEarlier(earlier);
  // A queued task was priced (and its inputs measured) when it was admitted: its row says so, nothing is downloaded.
  const admissible = earlier
    ? { ...declared, costMicros: earlier.costReserved, inputSeconds: earlier.inputSeconds ?? undefined }
    : await measuredRequest(deps, declared);

  const admission = await admitGeneration(deps.temporal, generationInput(deps.config, input, admissible), {
    accountKind: input.accountKind,
  });
  if (admission.outcome === 'admitted')
    return earlier ? admittedEarlier(earlier) : queuedGeneration(admission.task, admissible.costMicros);
  if (admission.outcome === 'ended') {
    // The workflow of this key ran to its end between our lookup and the start: its row answers.
    const ended = await earlierAdmission(deps, input, admissible.hash);
    if (ended) return admittedEarlier(ended);
  }
  if (earlier) throw new ServiceUnavailableError(unconfirmedMessage);
  throw admissionRefusal(admission, admissible.costMicros);
}

export const queuedGeneration = (task: TaskView, costMicros: bigint): QueuedGeneration => ({
  id: task.id,
  type: task.type,
  model: task.model,
  costMicros,
  createdAt: task.created_at,
});

/** Why a request was not admitted, as the domain error the API translates. */
export function admissionRefusal(admission: Exclude<AdmissionOutcome, { outcome: 'admitted' }>, costMicros: bigint) {
  switch (admission.outcome) {
    case 'insufficient_funds':
      return new InsufficientFundsError(costMicros, BigInt(admission.availableMicros));
    case 'conflict':
      return new IdempotencyKeyReusedError();
    case 'payer_busy':
      return new TooManyTasksError(
        `This payer already has ${admission.limit} tasks queued or running; retry when one has ended. Nothing was charged.`,
        payerBusyRetrySeconds,
      );
    default:
      return new ServiceUnavailableError(
        'The generation could not be admitted; nothing was charged. Retry the request.',
      );
  }
}

/**
 * The caller's own task, from its row: the workflow writes each step to the row before it holds it itself, so a
 * query of the workflow (a round trip through Temporal to a worker) would never answer anything fresher.
 */
export async function getGeneration(
  deps: Pick<GenerationServiceDeps, 'prisma' | 'endedTasks'>,
  input: { taskId: string; account: { id: string; kind: AccountKind }; onlyTask?: string },
): Promise<TaskView> {
  // A task token reads its own task; any other id is answered as not found, like someone else's task.
  const allowed = input.onlyTask === undefined || input.onlyTask === input.taskId;
  if (!allowed) throw new NotFoundError(`No generation ${input.taskId}.`);
  // Only wallets pay with x402: other accounts' reads skip the payment query, and may be answered from memory.
  const withPayment = input.account.kind === 'wallet';
  const remembered = withPayment ? undefined : deps.endedTasks?.get(input.taskId, input.account.id);
  if (remembered) return remembered;
  const task = await findTaskForAccount(deps.prisma, input.taskId, input.account.id, withPayment);
  if (!task) throw new NotFoundError(`No generation ${input.taskId}.`);
  const view = taskView(task);
  if (!withPayment) deps.endedTasks?.remember(input.account.id, view);
  return view;
}
