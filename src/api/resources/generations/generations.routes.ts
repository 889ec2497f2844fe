import { ownTasksOnly } from '../../../accounts/api-keys.ts';
import type { RequestHandler } from 'express';
import type { Call } from '../../call.ts';
import { formatUsd, usdNumber } from '../../../domain/money.ts';
import { publicApiUrl } from '../../../config/config.ts';
import { cancelGeneration } from '../../../use-cases/generations/cancel.ts';
import { admitGeneration, type QueuedGeneration } from '../../../use-cases/generations/admit.ts';
import { admissibleRequest } from '../../../use-cases/generations/admissible.ts';
import { readGeneration } from '../../../use-cases/generations/read.ts';
import { generationReceipts, paymentHeadersOf } from '../../../use-cases/generations/receipts.ts';
import { decodeHistoryCursor } from '../../../generations/history-cursor.ts';
import { listTaskHistory } from '../../../generations/task-history.ts';
import type { TaskView } from '../../../generations/task-view.ts';
import { exampleGeneration } from '../../../generations/example-request.ts';
import { DomainError } from '../../../domain/errors.ts';
import { examplePaymentProbe } from '../../discovery/payment-probe.ts';
import { type ApiContext, defineEndpoint } from '../../endpoint.ts';
import { holdLongLived } from '../../long-lived.ts';
import { preferredWaitSeconds, waitApplied } from '../../prefer.ts';
import { webhookSignature } from '../../webhook-signature.ts';
import { GenerationReceiptsResponseSchema } from './receipts.schemas.ts';
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
} from './generations.schemas.ts';

/** Spec §9: the alias is deprecated with a 60-day compatibility window. */
const predictionsSunset = 'Wed, 29 Jul 2026 10:24:55 GMT';

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
async function taskAnswer(ctx: ApiContext, task: TaskView, base: string) {
  const headers = await paymentHeadersOf(ctx, task, base);
  return headers ? { body: task, headers } : { body: task };
}

/** What `Prefer: wait=N` asks of the service: nothing without it; a wait holds one of the caller's slots. */
function holdFor(
  prefer: string | undefined,
  { ctx, call, accountId }: { ctx: ApiContext; call: Call; accountId: string },
) {
  const waitSeconds = preferredWaitSeconds(prefer);
  if (waitSeconds === undefined) return { waitSeconds };
  holdLongLived(ctx.longLived, call, accountId);
  return { waitSeconds, waitMs: waitSeconds * 1000, signal: call.exchange.signal };
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
  description:
    "The caller's own task, as its workflow last recorded it. Someone else's task id answers 404 exactly like an unknown one. An x402-paid task is read with its `access_token` as the bearer (that task only) and shows its `payment`; its outputs appear once the payment has settled. While the task runs, `started_at` and `progress` (`stage`, `percent`, `queue_position`, where known) say how far it is. With `Prefer: wait=N` (at most 60 s) the answer is held until the task ends, then carries `Preference-Applied: wait=N`; without that header the wait ran out. A completed task's `outputs_expire_at` says when its outputs are deleted (OUTPUT_RETENTION_DAYS after it completed); from then on their links answer 410 `output_expired`.",
  tags,
  auth: 'any_or_task_token',
  request: { params: GenerationIdParamsSchema, headers: GetGenerationHeadersSchema },
  success: { ...taskResponse, headers: { ...paymentResponseHeaderDocs, ...preferenceAppliedDoc } },
  errors: ['not_found'],
  handle: async ({ params, headers, principal, ctx, call, base }) => {
    const { waitSeconds, ...hold } = holdFor(headers.Prefer, { ctx, call, accountId: principal.account.id });
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
  description:
    "Gateway extension (not in interface 1.1.0). Your tasks, newest first (by `created_at`, then `id`), `limit` per page (1 to 100, default 20); each exactly as GET /generations/{id} answers it. Filters, all optional and all matched together: `status`, `type`, `model`, `idempotency_key`, `created_after` and `created_before` (ISO 8601, exclusive). While `next_cursor` is not null, pass it as `cursor` (with the same filters) for the next page: pages are stable while tasks are being created (a new task appears only on a first page, none is skipped or listed twice). A value the endpoint cannot read, a `cursor` included, is 400 naming the field. Any API key; another account's tasks are never listed.",
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
    description:
      'Validates and prices the request (the same price as POST /agents/quote), reserves that cost, and answers 202 with the task id and `poll_url` once the reservation and the task are durable. Both layouts are accepted: the top-level fields, or `{ model, input: { … }, webhook }`. The priced options `sound` and `generate_type` are checked against the model as the quote checks them (400 naming the field), priced alike and sent to the model. For text-to-text without `prompt`, system `messages` become `system_prompt` and the others a "User: … / Assistant: …" transcript. An `Idempotency-Key` header (1 to 255 visible ASCII characters, per account) makes retries return the same task (a different body with the same key is 409 `idempotency_key_reused`, as is a key with a policy sending one that another API key of the account used first); such a retry answers the original admission (`status: queued`), so poll `poll_url` for the current state. 402 `insufficient_balance` carries `cost` and `balance_available` and reserves nothing. A model priced on the length of an input (per minute of audio, lip-sync) is priced on the length of the file itself, which is downloaded and measured before anything is reserved: not on `duration`; an input that cannot be downloaded or read, or is longer than the model takes, is 400 naming its field. Gateway extension: with `Prefer: wait=N` (at most 60 s) the answer is held for the task to end: 201 with the whole task (completed or failed), `Location` and `Preference-Applied: wait=N` if it ended in time, else the usual 202.',
    keylessPaymentDescription:
      'Without an API key (x402 is on here; `supports_x402` in GET /models names the models): 402 `payment_required` with the x402 `requirements` (and the `PAYMENT-REQUIRED` header); a valid payment (`PAYMENT-SIGNATURE` or `X-PAYMENT`) admits the task (202 with a task-scoped `access_token`, and `webhook_secret` when a `webhook_url` was named), settles only once the outputs are stored and never for a failed task; the same payment again answers the same task (the payment, not `Idempotency-Key`, identifies a retry), and so does another payment carrying the same x402 `payment-identifier` id (checked first; only the first payment is ever settled), for another body 409 `conflict`; a payer over `X402_MAX_TASKS_PER_PAYER` tasks in flight gets 429 `rate_limited`.',
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
    handle: async ({ body, headers, principal, ctx, call, base }) => {
      const { waitSeconds, ...hold } = holdFor(headers.Prefer, { ctx, call, accountId: principal.account.id });
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
    handleUnpaid: async ({ body, ctx, call, base }) => {
      const resourceUrl = publicApiUrl(base, '/generations');
      const payer = ctx.payments.keylessPayer(ctx.config, call.headers, resourceUrl);
      const { queued, access } = await admitGeneration(ctx, { body }, payer);
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
    description:
      "The task's signed receipts (x402's offer-receipt extension: a JWS, ES256, signed with the receipt key, whose `kid` is `<this server's did:web>#receipts-1`; the key is published at `/.well-known/did.json` beside the offer key `#offers-1`, and a verifier of receipts takes only the receipt key: see docs/x402.md): an x402 task's settled `payment` (network, payer, transaction) and, for `upto`, a `refund` of what of its maximum was never taken (no transfer: no `transaction`); a balance task's `charge` and the `refund` of what its reservation gave back (a failed or cancelled task: all of it), with `transaction` `ledger:<entry id>`. Each signed payload names the task (`id`, `resourceUrl`), the `kind`, the `amount` (micro-USD, USDC's atomic units) and the transaction where one moved it. Empty while nothing has moved (an x402 task before settling; a failed x402 task, whose payment never moves).",
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
    description:
      'Cancels the caller\'s own queued or processing task (beyond the spec, as Replicate and fal offer). Its workflow is cancelled: an upstream job is cancelled at the provider, everything the task reserved is released (an x402 payment is abandoned, never settled) and the task ends `failed` with `error: "cancelled"`, then its `generation.failed` webhook is sent. Answers 200 with the ended task when that happened within a few seconds, else 202 with the task as it is now (poll it). Cancelling a cancelled task again answers 200; a task that completed or failed otherwise answers 409 `conflict` with its `status`. Someone else\'s task id answers 404 exactly like an unknown one. An x402-paid task is cancelled with its `access_token`; once its payment is settling, the cancel comes too late and the task completes.',
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
    description: `Deprecated alias of GET /generations/{id} with the same bodies and status codes; responses carry \`Deprecation: true\`, \`Sunset: ${predictionsSunset}\` and a \`Link\` to the successor.`,
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
