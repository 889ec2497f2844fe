import { ownTasksOnly } from '../../accounts/api-keys.ts';
import type { Request, RequestHandler, Response } from 'express';
import { formatUsd, usdNumber } from '../../domain/money.ts';
import { publicApiUrl } from '../../config/config.ts';
import { cancelGeneration } from '../../orchestration/generations/cancel.ts';
import { admitGeneration, type QueuedGeneration } from '../../orchestration/generations/admit.ts';
import { admissibleRequest } from '../../orchestration/generations/admissible.ts';
import { readGeneration } from '../../orchestration/generations/read.ts';
import { generationReceipts, paymentHeadersOf } from '../../orchestration/generations/receipts.ts';
import { decodeHistoryCursor } from '../../generations/history-cursor.ts';
import { listTaskHistory } from '../../generations/task-history.ts';
import type { TaskView } from '../../generations/task-view.ts';
import { keylessPayer } from '../../payments/methods/registered.ts';
import { exampleGeneration } from '../../payments/methods/x402/bazaar.ts';
import { DomainError } from '../../domain/errors.ts';
import { examplePaymentProbe } from '../discovery/payment-probe.ts';
import { endpointDescriptions, predictionsSunset } from '../descriptions.ts';
import { type ApiContext, defineEndpoint } from '../endpoint.ts';
import { holdLongLived } from '../long-lived.ts';
import { preferredWaitSeconds, waitApplied } from '../prefer.ts';
import { hangUpSignal } from '../shutdown-gate.ts';
import { webhookSignature } from '../webhook-signature.ts';
import { GenerationReceiptsResponseSchema } from '../schemas/receipts.schemas.ts';
import {
  CreateGenerationBodySchema,
  CreateGenerationHeadersSchema,
  GenerationHistoryQuerySchema,
  GenerationHistoryResponseSchema,
  GenerationIdParamsSchema,
  GenerationQueuedResponseSchema,
  GenerationStatusResponseSchema,
  GetGenerationHeadersSchema,
  PredictionIdParamsSchema,
} from '../schemas/generations.schemas.ts';

const tags = ['Generations'];

export const deprecatedAliasHeaders: RequestHandler = (req, res, next) => {
  res.set({
    Deprecation: 'true',
    Sunset: predictionsSunset,
    Link: `</api/v1/generations/${encodeURIComponent(req.path.split('/')[1] ?? '')}>; rel="successor-version"`,
  });
  next();
};

const queuedBody = (task: QueuedGeneration) => ({
  id: task.id,
  type: task.type,
  model: task.model,
  status: 'queued' as const,
  cost: usdNumber(task.costMicros),
  cost_formatted: `$${formatUsd(task.costMicros)}`,
  created_at: task.createdAt,
  poll_url: `/api/v1/generations/${task.id}`,
});

/** The task; a settled payment also answers in its method's receipt headers (x402's PAYMENT-RESPONSE). */
/** A task as answered: its payment's receipt headers, once an x402 payment has settled (signed). */
async function taskAnswer(ctx: ApiContext, task: TaskView, base: string) {
  const headers = await paymentHeadersOf(ctx, task, base);
  return headers ? { body: task, headers } : { body: task };
}

/** What `Prefer: wait=N` asks of the service: nothing without it; a wait holds one of the caller's slots. */
function holdFor(
  prefer: string | undefined,
  call: { ctx: ApiContext; req: Request; res: Response; accountId: string },
) {
  const waitSeconds = preferredWaitSeconds(prefer);
  if (waitSeconds === undefined) return { waitSeconds };
  holdLongLived(call.ctx.longLived, call.req, call.res, call.accountId);
  return { waitSeconds, waitMs: waitSeconds * 1000, signal: hangUpSignal(call.res) };
}

/**
 * What a paymentless probe with no valid body is priced as: the cheapest example (a prompt alone) of a model payable
 * with x402 and runnable here, ties by id; none when no model runs on a prompt alone.
 */
function cheapestExample(ctx: ApiContext) {
  const priced = ctx.catalog.models.flatMap((model) => {
    if (!model.supports_x402) return [];
    const body = exampleGeneration({ type: model.type, model: model.id }) as Parameters<typeof admissibleRequest>[1];
    try {
      return [{ body, id: model.id, costMicros: admissibleRequest(ctx, body).costMicros }];
    } catch (error) {
      if (error instanceof DomainError) return []; // it needs more than a prompt, or cannot run here
      throw error;
    }
  });
  const [cheapest] = priced.sort((a, b) => Number(a.costMicros - b.costMicros) || a.id.localeCompare(b.id));
  return cheapest?.body;
}

const preferenceAppliedDoc = {
  'Preference-Applied': {
    description: '`wait=N`: the task ended within the wait the `Prefer` header asked for (N as applied, at most 60)',
    schema: { type: 'string' as const },
  },
};

const paymentResponseHeaderDocs = {
  'PAYMENT-RESPONSE': {
    description:
      'x402-paid tasks once settled: the x402 settlement response (base64 JSON: transaction, network, payer)',
    schema: { type: 'string' as const },
  },
  'X-PAYMENT-RESPONSE': {
    description: 'The same, under the x402 v1 name',
    schema: { type: 'string' as const },
  },
};

const taskResponse = {
  status: 200,
  description: 'The task',
  schema: GenerationStatusResponseSchema,
  headers: paymentResponseHeaderDocs,
};

/** GET /generations/{id}, held up to `Prefer: wait=N` seconds for the task to end when the header asks for it. */
const getGenerationDefinition = defineEndpoint({
  method: 'get',
  path: '/generations/{id}',
  operationId: 'getGeneration',
  summary: 'Read a generation task',
  description: endpointDescriptions.getGeneration,
  tags,
  auth: 'any_or_task_token',
  request: { params: GenerationIdParamsSchema, headers: GetGenerationHeadersSchema },
  success: { ...taskResponse, headers: { ...paymentResponseHeaderDocs, ...preferenceAppliedDoc } },
  errors: ['not_found'],
  handle: async ({ params, headers, principal, ctx, req, res, base }) => {
    const { waitSeconds, ...hold } = holdFor(headers.Prefer, { ctx, req, res, accountId: principal.account.id });
    const read = {
      taskId: params.id,
      account: principal.account,
      onlyTask: principal.task,
      onlyKey: ownTasksOnly(principal),
      ...hold,
    };
    const { task, ended } = await readGeneration(ctx, read);
    const answer = await taskAnswer(ctx, task, base);
    if (waitSeconds === undefined || !ended) return answer;
    return { ...answer, headers: { ...answer.headers, ...waitApplied(waitSeconds) } };
  },
});

/** GET /generations: a page of the caller's tasks; the query's cursor and dates are already checked by its schema. */
const listGenerationsDefinition = defineEndpoint({
  method: 'get',
  path: '/generations',
  operationId: 'listGenerations',
  summary: 'List your generation tasks',
  description: endpointDescriptions.listGenerations,
  tags,
  auth: 'any',
  request: { query: GenerationHistoryQuerySchema },
  success: { status: 200, description: 'A page of your tasks, newest first', schema: GenerationHistoryResponseSchema },
  handle: async ({ query, principal, ctx }) => {
    const { account, apiKey } = principal;
    const page = await listTaskHistory(ctx, {
      scope: {
        accountId: account.id,
        accountKind: account.kind,
        ...(apiKey?.policy && { onlyKeyId: apiKey.id }),
      },
      filter: {
        status: query.status,
        type: query.type,
        model: query.model,
        idempotencyKey: query.idempotency_key,
        keyId: query.key_id,
        createdAfter: query.created_after === undefined ? undefined : new Date(query.created_after),
        createdBefore: query.created_before === undefined ? undefined : new Date(query.created_before),
      },
      limit: query.limit,
      after: query.cursor === undefined ? undefined : decodeHistoryCursor(query.cursor),
    });
    return { body: { generations: page.tasks, next_cursor: page.nextCursor } };
  },
});

export const generationEndpoints = [
  defineEndpoint({
    method: 'post',
    path: '/generations',
    operationId: 'createGeneration',
    summary: 'Create a generation task',
    description: endpointDescriptions.createGeneration,
    keylessPaymentDescription: endpointDescriptions.createGenerationWithoutKey,
    tags,
    auth: 'any_or_keyless_payment',
    rateLimit: 'admissions',
    request: { body: CreateGenerationBodySchema, headers: CreateGenerationHeadersSchema },
    success: {
      status: 202,
      description: 'The task is queued',
      schema: GenerationQueuedResponseSchema,
      alternative: {
        status: 201,
        description: 'With `Prefer: wait=N`: the task ended within the wait; the whole task, completed or failed',
        schema: GenerationStatusResponseSchema,
        headers: {
          ...preferenceAppliedDoc,
          Location: { description: 'The task: `/api/v1/generations/{id}`', schema: { type: 'string' } },
        },
      },
    },
    errors: [
      'insufficient_balance',
      'payment_required',
      'idempotency_key_reused',
      'conflict',
      'rate_limited',
      'service_unavailable',
    ],
    handle: async ({ body, headers, principal, ctx, req, res, base }) => {
      const { waitSeconds, ...hold } = holdFor(headers.Prefer, { ctx, req, res, accountId: principal.account.id });
      const { queued, ended } = await admitGeneration(
        ctx,
        { body, ...hold },
        {
          kind: 'balance',
          account: principal.account,
          idempotencyKey: headers['Idempotency-Key'] ?? null,
          ...(principal.apiKey && { key: principal.apiKey }),
        },
      );
      if (!ended || waitSeconds === undefined) return { status: 202, body: queuedBody(queued) };
      const location = { Location: `/api/v1/generations/${queued.id}`, ...waitApplied(waitSeconds) };
      const answer = await taskAnswer(ctx, ended, base);
      return { status: 201, body: answer.body, headers: { ...answer.headers, ...location } };
    },
    handleUnpaid: async ({ body, ctx, req, base }) => {
      const resourceUrl = publicApiUrl(base, '/generations');
      const { queued, access } = await admitGeneration(ctx, { body }, keylessPayer(req.headers, resourceUrl));
      // A repeat of the payment once its task has started gets the task without its token or secret.
      const token = access ? { access_token: access.accessToken } : {};
      const secret = access?.webhookSecret ? { webhook_secret: access.webhookSecret, ...webhookSignature } : {};
      return { status: 202, body: { ...queuedBody(queued), ...token, ...secret } };
    },
    paymentProbe: examplePaymentProbe(cheapestExample),
  }),
  listGenerationsDefinition,
  getGenerationDefinition,
  defineEndpoint({
    method: 'get',
    path: '/generations/{id}/receipt',
    operationId: 'getGenerationReceipts',
    summary: "A generation task's signed receipts",
    description: endpointDescriptions.getGenerationReceipts,
    tags,
    auth: 'any_or_task_token',
    request: { params: GenerationIdParamsSchema },
    success: { status: 200, description: 'What the task moved, signed', schema: GenerationReceiptsResponseSchema },
    errors: ['not_found'],
    handle: async ({ params, principal, ctx, base }) => {
      const owner = { onlyTask: principal.task, onlyKey: ownTasksOnly(principal) };
      const read = { taskId: params.id, account: principal.account, ...owner };
      const receipts = await generationReceipts(ctx, read, base);
      return {
        body: {
          task_id: params.id,
          receipts: receipts.map(({ kind, amount, network, transaction, payer, issuedAt, receipt }) => ({
            kind: kind as 'payment' | 'charge' | 'refund',
            amount: formatUsd(amount),
            network,
            transaction,
            payer,
            issued_at: issuedAt.toISOString(),
            receipt,
          })),
        },
      };
    },
  }),
  defineEndpoint({
    method: 'post',
    path: '/generations/{id}/cancel',
    operationId: 'cancelGeneration',
    summary: 'Cancel a generation task',
    description: endpointDescriptions.cancelGeneration,
    tags,
    auth: 'any_or_task_token',
    request: { params: GenerationIdParamsSchema },
    success: {
      status: 200,
      description: 'The cancel has landed: the task, `failed` with error `cancelled`, everything it reserved released',
      schema: GenerationStatusResponseSchema,
      alternative: { status: 202, description: 'The cancel is under way: the task as it is now; poll it' },
    },
    errors: ['not_found', 'conflict'],
    handle: async ({ params, principal, ctx }) => {
      const owner = { accountId: principal.account.id, onlyTask: principal.task, onlyKey: ownTasksOnly(principal) };
      const { task, ended } = await cancelGeneration(ctx, { taskId: params.id, owner });
      return { status: ended ? 200 : 202, body: task };
    },
  }),
  defineEndpoint({
    method: 'get',
    path: '/predictions/{taskId}/result',
    operationId: 'getPredictionResult',
    summary: 'Read a generation task (deprecated alias)',
    description: endpointDescriptions.getPredictionResult,
    tags,
    auth: 'any_or_task_token',
    deprecated: true,
    request: { params: PredictionIdParamsSchema },
    success: {
      ...taskResponse,
      headers: {
        ...paymentResponseHeaderDocs,
        Deprecation: { description: 'Always `true`', schema: { type: 'string' } },
        Sunset: { description: 'RFC 1123 date after which the alias may be removed', schema: { type: 'string' } },
        Link: { description: 'The successor endpoint', schema: { type: 'string' } },
      },
    },
    errors: ['not_found'],
    handle: async ({ params, principal, ctx, base }) => {
      const read = {
        taskId: params.taskId,
        account: principal.account,
        onlyTask: principal.task,
        onlyKey: ownTasksOnly(principal),
      };
      return taskAnswer(ctx, (await readGeneration(ctx, read)).task, base);
    },
  }),
];
