// Creating and reading generation tasks: what POST /generations and GET /generations/{id} mean, whatever the
// transport. Refusals are domain errors; the API translates them in one place.
import type { Catalog } from '../catalog/catalog.ts';
import { priceRequest } from '../catalog/pricing.ts';
import { ModelRequestError, resolveModel } from '../catalog/resolve.ts';
import type { Config } from '../config.ts';
import type { PrismaClient } from '../db/prisma.ts';
import {
  IdempotencyKeyReusedError,
  NotFoundError,
  ServiceUnavailableError,
  TooManyTasksError,
} from '../domain/errors.ts';
import type { GenerationRequest, InputLayoutRequest } from '../domain/generation-request.ts';
import { foldMessages, missingInputs, normaliseLayout, requestHash } from '../generation/request.ts';
import { taskView, type TaskView } from '../generation/task-view.ts';
import { canRun } from '../providers/registry.ts';
import { admitGeneration, type AdmissionOutcome, liveTaskState, type TemporalDeps } from '../temporal/generations.ts';
import { derivedId, newId } from './ids.ts';
import { InsufficientFundsError } from './ledger.ts';
import { findTaskByIdempotencyKey, findTaskForAccount, storedRequest } from './tasks.ts';

export interface GenerationServiceDeps {
  prisma: PrismaClient;
  config: Config;
  catalog: Catalog;
  temporal: TemporalDeps;
}

export interface NewGeneration {
  accountId: string;
  body: GenerationRequest | InputLayoutRequest;
  idempotencyKey: string | null;
}

/** An admitted task: queued, its cost reserved. */
export interface QueuedGeneration {
  id: string;
  type: string;
  model: string;
  costMicros: bigint;
  createdAt: string;
}

/** A payer at its cap of tasks in flight waits about as long as a short task takes. */
const payerBusyRetrySeconds = 10;

/** The same account and key always name the same task, so a retried POST joins the first one's workflow. */
const taskIdFor = (accountId: string, idempotencyKey: string | null) =>
  idempotencyKey ? derivedId('gen', `${accountId}\n${idempotencyKey}`) : newId('gen');

/** Validates, prices and checks the request against the catalog and this server's providers. */
export function admissibleRequest(deps: GenerationServiceDeps, body: NewGeneration['body']) {
  const request = foldMessages(normaliseLayout(body, (id) => deps.catalog.get(id)?.type));
  const model = resolveModel(deps.catalog, request);
  const missing = missingInputs(request);
  if (missing.length > 0) throw new ModelRequestError(missing);
  if (!canRun(deps.config, model)) {
    const message = `${model.id} is not available on this server (its provider is not configured here)`;
    throw new ModelRequestError([{ field: 'model', message }]);
  }
  return { request, model, costMicros: priceRequest(model, request).micros, hash: requestHash(request) };
}

/** A request admitted earlier under the same Idempotency-Key; another request under that key is refused. */
async function earlierAdmission(
  deps: GenerationServiceDeps,
  input: NewGeneration,
  hash: string,
): Promise<QueuedGeneration | null> {
  if (!input.idempotencyKey) return null;
  const earlier = await findTaskByIdempotencyKey(deps.prisma, input.accountId, input.idempotencyKey);
  if (!earlier) return null;
  if (requestHash(storedRequest(earlier)) !== hash) throw new IdempotencyKeyReusedError();
  const { id, type, model, costReserved, createdAt } = earlier;
  return { id, type, model, costMicros: costReserved, createdAt: createdAt.toISOString() };
}

/**
 * Reserves the request's cost and queues its task; answers once both are durable. A retry under the same
 * Idempotency-Key answers the original admission and charges nothing more.
 */
export async function createGeneration(deps: GenerationServiceDeps, input: NewGeneration): Promise<QueuedGeneration> {
  const { request, model, costMicros, hash } = admissibleRequest(deps, input.body);
  const earlier = await earlierAdmission(deps, input, hash);
  if (earlier) return earlier;

  const admission = await admitGeneration(deps.temporal, {
    taskId: taskIdFor(input.accountId, input.idempotencyKey),
    accountId: input.accountId,
    request,
    costMicros: costMicros.toString(),
    idempotencyKey: input.idempotencyKey,
    modelId: model.id,
    requestHash: hash,
    timeoutSeconds: model.timeout_seconds,
  });
  if (admission.outcome === 'admitted') return queuedGeneration(admission.task, costMicros);
  if (admission.outcome === 'ended') {
    // The workflow of this key ran to its end between our lookup and the start: its row answers.
    const ended = await earlierAdmission(deps, input, hash);
    if (ended) return ended;
  }
  throw admissionRefusal(admission, costMicros);
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

/** The caller's own task: live from its workflow while it runs (fresher than the row), from the row once ended. */
export async function getGeneration(
  deps: Pick<GenerationServiceDeps, 'prisma' | 'temporal'>,
  input: { taskId: string; accountId: string; onlyTask?: string },
): Promise<TaskView> {
  // A task token reads its own task; any other id is answered as not found, like someone else's task.
  const allowed = input.onlyTask === undefined || input.onlyTask === input.taskId;
  const task = allowed ? await findTaskForAccount(deps.prisma, input.taskId, input.accountId) : null;
  if (!task) throw new NotFoundError(`No generation ${input.taskId}.`);
  const running = task.status === 'queued' || task.status === 'processing';
  const live = running ? await liveTaskState(deps.temporal, input.taskId) : null;
  return live ?? taskView(task);
}
