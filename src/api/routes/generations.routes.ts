import type { Request, RequestHandler } from 'express';
import { priceRequest } from '../../catalog/pricing.ts';
import { ModelRequestError, resolveModel } from '../../catalog/resolve.ts';
import { canRun } from '../../providers/registry.ts';
import {
  foldMessages,
  type GenerationRequest,
  missingInputs,
  normaliseLayout,
  requestHash,
} from '../../generation/request.ts';
import { taskView, type TaskView } from '../../generation/task-view.ts';
import type { Task } from '../../generated/prisma/client.ts';
import { formatUsd, usdNumber } from '../../money.ts';
import { derivedId, newId } from '../../services/ids.ts';
import { findTaskByIdempotencyKey, findTaskForAccount } from '../../services/tasks.ts';
import { admitGeneration, liveTaskState } from '../../temporal/generations.ts';
import { type ApiContext, defineEndpoint } from '../endpoint.ts';
import { ApiError } from '../errors.ts';
import {
  CreateGenerationBodySchema,
  GenerationIdParamsSchema,
  GenerationQueuedResponseSchema,
  GenerationStatusResponseSchema,
  PredictionIdParamsSchema,
} from '../schemas/generations.schemas.ts';

const tags = ['Generations'];

/** Spec §9: the alias is deprecated with a 60-day compatibility window. */
export const predictionsSunset = 'Wed, 29 Jul 2026 10:24:55 GMT';

export const deprecatedAliasHeaders: RequestHandler = (req, res, next) => {
  res.set({
    Deprecation: 'true',
    Sunset: predictionsSunset,
    Link: `</api/v1/generations/${encodeURIComponent(req.path.split('/')[1] ?? '')}>; rel="successor-version"`,
  });
  next();
};

const invalid = (message: string) => new ApiError('validation_error', `Invalid body: ${message}`);
const reused = () =>
  new ApiError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request.');

function idempotencyKeyOf(req: Request): string | null {
  const key = req.get('Idempotency-Key');
  if (key === undefined) return null;
  if (!/^[\x21-\x7e]{1,255}$/.test(key))
    throw new ApiError(
      'validation_error',
      'Invalid header: Idempotency-Key must be 1 to 255 visible ASCII characters.',
    );
  return key;
}

/** The same account and key always name the same task, so a retried POST joins the first one's workflow. */
const taskIdFor = (accountId: string, idempotencyKey: string | null) =>
  idempotencyKey ? derivedId('gen', `${accountId}\n${idempotencyKey}`) : newId('gen');

function queuedBody(
  task: Pick<Task, 'id' | 'type' | 'model' | 'costReserved' | 'createdAt'> | TaskView,
  costMicros: bigint,
) {
  const createdAt = 'createdAt' in task ? task.createdAt.toISOString() : task.created_at;
  return {
    id: task.id,
    type: task.type,
    model: task.model,
    status: 'queued' as const,
    cost: usdNumber(costMicros),
    cost_formatted: `$${formatUsd(costMicros)}`,
    created_at: createdAt,
    poll_url: `/api/v1/generations/${task.id}`,
  };
}

async function readTask(ctx: ApiContext, taskId: string, accountId: string) {
  const task = await findTaskForAccount(ctx.prisma, taskId, accountId);
  if (!task) throw new ApiError('not_found', `No generation ${taskId}.`);
  // A running task is answered by its workflow (fresher than the row); a finished one by the row.
  const live =
    task.status === 'queued' || task.status === 'processing' ? await liveTaskState(ctx.temporal, taskId) : null;
  return { body: live ?? taskView(task) };
}

export const generationEndpoints = [
  defineEndpoint({
    method: 'post',
    path: '/generations',
    operationId: 'createGeneration',
    summary: 'Create a generation task',
    description:
      'Validates and prices the request (the same price as POST /agents/quote), reserves that cost, and answers 202 ' +
      'with the task id and `poll_url` once the reservation and the task are durable. Both layouts are accepted: the top-level ' +
      'fields, or `{ model, input: { … }, webhook }`. For text-to-text without `prompt`, system `messages` become `system_prompt` ' +
      'and the others a "User: … / Assistant: …" transcript. An `Idempotency-Key` header makes retries return the same task ' +
      '(a different body with the same key is 409 `idempotency_key_reused`); such a retry answers the original admission ' +
      '(`status: queued`), so poll `poll_url` for the current state. 402 `insufficient_balance` carries `cost` and ' +
      '`balance_available` and reserves nothing.',
    tags,
    auth: 'any_or_x402',
    request: { body: CreateGenerationBodySchema },
    success: { status: 202, description: 'The task is queued', schema: GenerationQueuedResponseSchema },
    errors: ['insufficient_balance', 'idempotency_key_reused', 'service_unavailable'],
    handle: async ({ body, principal, ctx, req }) => {
      const request: GenerationRequest = foldMessages(normaliseLayout(body, (id) => ctx.catalog.get(id)?.type));
      let model;
      try {
        model = resolveModel(ctx.catalog, request);
      } catch (error) {
        if (error instanceof ModelRequestError) throw invalid(error.message);
        throw error;
      }
      const missing = missingInputs(request);
      if (missing.length > 0)
        throw invalid(missing.map((problem) => `${problem.field}: ${problem.message}`).join('; '));
      if (!canRun(ctx.config, model))
        throw invalid(`model: ${model.id} is not available on this server (its provider is not configured here)`);
      const cost = priceRequest(model, request).micros;
      const hash = requestHash(request);
      const accountId = principal.account.id;

      const idempotencyKey = idempotencyKeyOf(req);
      /** A retry of an admitted request answers its admission again; another request under the key is 409. */
      const replay = async () => {
        const earlier = idempotencyKey ? await findTaskByIdempotencyKey(ctx.prisma, accountId, idempotencyKey) : null;
        if (!earlier) return null;
        if (requestHash(earlier.request as GenerationRequest) !== hash) throw reused();
        return { status: 202, body: queuedBody(earlier, earlier.costReserved) };
      };
      const earlier = await replay();
      if (earlier) return earlier;

      const taskId = taskIdFor(accountId, idempotencyKey);
      const admission = await admitGeneration(ctx.temporal, {
        taskId,
        accountId,
        request,
        costMicros: cost.toString(),
        idempotencyKey,
        modelId: model.id,
        requestHash: hash,
        timeoutSeconds: model.timeout_seconds,
      });
      if (admission.outcome === 'conflict') throw reused();
      if (admission.outcome === 'ended') {
        const ended = await replay();
        if (ended) return ended;
        throw new ApiError('service_unavailable', 'The generation could not be admitted; retry the request.');
      }
      if (admission.outcome === 'unavailable')
        throw new ApiError(
          'service_unavailable',
          'The generation could not be admitted; nothing was charged. Retry the request.',
        );
      if (admission.outcome === 'insufficient_funds') {
        const available = BigInt(admission.availableMicros);
        throw new ApiError(
          'insufficient_balance',
          `This generation costs $${formatUsd(cost)}; the available balance is $${formatUsd(available)}.`,
          {
            cost: usdNumber(cost),
            balance_available: usdNumber(available),
          },
        );
      }
      return { status: 202, body: queuedBody(admission.task, cost) };
    },
  }),
  defineEndpoint({
    method: 'get',
    path: '/generations/{id}',
    operationId: 'getGeneration',
    summary: 'Read a generation task',
    description:
      "The caller's own task: live from its workflow while it runs, from the database once it has ended. " +
      "Someone else's task id answers 404 exactly like an unknown one.",
    tags,
    auth: 'any',
    request: { params: GenerationIdParamsSchema },
    success: { status: 200, description: 'The task', schema: GenerationStatusResponseSchema },
    errors: ['not_found'],
    handle: ({ params, principal, ctx }) => readTask(ctx, params.id, principal.account.id),
  }),
  defineEndpoint({
    method: 'get',
    path: '/predictions/{taskId}/result',
    operationId: 'getPredictionResult',
    summary: 'Read a generation task (deprecated alias)',
    description: `Deprecated alias of GET /generations/{id} with the same bodies and status codes; responses carry \`Deprecation: true\`, \`Sunset: ${predictionsSunset}\` and a \`Link\` to the successor.`,
    tags,
    auth: 'any',
    deprecated: true,
    request: { params: PredictionIdParamsSchema },
    success: {
      status: 200,
      description: 'The task',
      schema: GenerationStatusResponseSchema,
      headers: {
        Deprecation: { description: 'Always `true`', schema: { type: 'string' } },
        Sunset: { description: 'RFC 1123 date after which the alias may be removed', schema: { type: 'string' } },
        Link: { description: 'The successor endpoint', schema: { type: 'string' } },
      },
    },
    errors: ['not_found'],
    handle: ({ params, principal, ctx }) => readTask(ctx, params.taskId, principal.account.id),
  }),
];
