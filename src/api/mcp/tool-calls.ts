// One MCP tool call: its endpoint run on the MCP request (its key, its address, its x402 payment from `_meta`), the
// answer as a tool result, and a wait for the task to end reported as MCP progress. Errors are tool errors carrying
// the API's { error, message }; an x402 payment asked for follows x402's MCP transport (PaymentRequired as the result).
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Request, Response } from 'express';
import { setTimeout as sleep } from 'node:timers/promises';
import { hasEnded } from '../../domain/values.ts';
import { PaymentRequiredError } from '../../domain/errors.ts';
import { mcpPaymentHeaders, mcpReceiptMeta } from '../../payments/methods/registered.ts';
import {
  type ApiContext,
  type Endpoint,
  type EndpointAnswer,
  executeEndpoint,
  paysWithoutKey,
  type RawRequest,
} from '../endpoint.ts';
import { ApiError, validationError } from '../errors.ts';
import { holdLongLived } from '../long-lived.ts';
import { outputContent } from './output-content.ts';
import { knownApiError } from '../middleware/errors.ts';
import { shutdownSignal } from '../shutdown-gate.ts';
import { bearerOf, callerKind } from './mcp-credentials.ts';
import { operationFor, type ToolDefinition } from './tools.ts';

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** How often a waiting tool looks at its task (each look is a `Prefer: wait` of at most this long). */
const followStepSeconds = 2;

export interface ToolCallContext {
  endpoints: Map<string, Endpoint>;
  ctx: ApiContext;
  req: Request;
  res: Response;
}

/** The MCP request as the endpoint sees it, with headers of the call's own (an x402 payment, a task's token). */
function requestWith(req: Request, headers: Record<string, string>): Request {
  if (Object.keys(headers).length === 0) return req;
  return Object.create(req, { headers: { value: { ...req.headers, ...headers } } }) as Request;
}

/**
 * The MCP response as an endpoint sees it: the headers it sets (rate limits, WWW-Authenticate) are not sent, the
 * stream's own went out already; its end (the client hung up) and the shutdown signal are the real response's.
 */
function toolResponse(res: Response): Response {
  const view = {
    locals: res.locals,
    set: () => view,
    setHeader: () => view,
    once: (event: string, listener: () => void) => (res.once(event, listener), view),
  };
  return view as unknown as Response;
}

export function run(call: ToolCallContext, operationId: string, raw: Partial<RawRequest>, req = call.req) {
  const endpoint = call.endpoints.get(operationId);
  if (!endpoint) throw new Error(`no endpoint ${operationId}`);
  const parts = { body: undefined, query: {}, params: {}, headers: {}, hasBody: false, ...raw };
  return executeEndpoint(endpoint, call.ctx, req, toolResponse(call.res), parts);
}

const asResult = (body: unknown, meta?: Record<string, unknown>): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(body) }],
  structuredContent: body as Record<string, unknown>,
  ...(meta ? { _meta: meta } : {}),
});

/** An answer as a tool result, a task's outputs linked after its JSON. */
export async function answerResult(call: ToolCallContext, body: unknown, meta?: Record<string, unknown>) {
  const result = asResult(body, meta);
  result.content.push(...(await outputContent(call.ctx.storage, body)));
  return result;
}

/** A settled payment's receipt, where the answer carries one (its method says how it rides in `_meta`). */
const paymentMeta = (answer: EndpointAnswer) => mcpReceiptMeta(answer.headers);

export interface TaskBody {
  id: string;
  status: string;
  progress?: { stage?: string; percent?: number };
}

/** Waits out the rest of a look that came back early (its workflow gone, Temporal unreachable), unless `stop`. */
async function pauseUntil(until: number, stop: AbortSignal): Promise<void> {
  const ms = until - Date.now();
  if (ms > 0) await sleep(ms, undefined, { signal: stop }).catch(() => undefined);
}

/** The highest percent reported to the client so far: kept across waits that follow one task in turn. */
export interface ReportedProgress {
  percent: number;
}

/** Reads the task until it ends or the wait is up, telling the client how far it is when it asked (progressToken). */
export async function follow(
  call: ToolCallContext,
  id: string,
  waitSeconds: number,
  extra: Extra,
  req: Request,
  reported: ReportedProgress = { percent: -1 },
) {
  const deadline = Date.now() + waitSeconds * 1000;
  const progressToken = extra._meta?.progressToken;
  const shutdown = shutdownSignal(call.res);
  // The client cancelling or the server shutting down ends the wait with the task as it is.
  const stop = shutdown ? AbortSignal.any([extra.signal, shutdown]) : extra.signal;
  for (;;) {
    const lookStarted = Date.now();
    const left = Math.max(1, Math.min(followStepSeconds, Math.ceil((deadline - Date.now()) / 1000)));
    const answer = await run(call, 'getGeneration', { params: { id }, headers: { Prefer: `wait=${left}` } }, req);
    const task = answer.body as TaskBody;
    if (hasEnded(task.status) || Date.now() >= deadline || stop.aborted) return answer;
    // MCP asks that progress only ever increases: a percent is reported once it moves.
    const percent = task.progress?.percent ?? 0;
    if (progressToken !== undefined && percent > reported.percent) {
      reported.percent = percent;
      const message = [task.status, task.progress?.stage].filter(Boolean).join(': ');
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken, progress: percent, total: 100, message },
      });
    }
    await pauseUntil(Math.min(lookStarted + left * 1000, deadline), stop);
  }
}

/**
 * A wait holds one of its caller's slots for the MCP request's life, taken before anything is created; its looks at
 * the task run within it. The caller is its key's account (the key is looked up as the endpoint will), or its address.
 */
export async function holdWaitSlot(call: ToolCallContext): Promise<void> {
  const principal = bearerOf(call.req)
    ? await call.ctx.authenticate(call.req, toolResponse(call.res), 'any_or_task_token')
    : undefined;
  holdLongLived(call.ctx.longLived, call.req, call.res, principal?.account.id);
}

/**
 * Arguments refused before the endpoint ran (the tool's own check) go to its payment probe as the endpoint's own
 * refusals do: a paymentless call without a key then gets the payment requirements, as a discovery probe must.
 */
async function probed(call: ToolCallContext, tool: ToolDefinition, req: Request, refusal: unknown) {
  const endpoint = call.endpoints.get(operationFor(tool, callerKind(call.req, call.res)));
  if (!endpoint?.paymentProbe || !paysWithoutKey(endpoint, call.ctx, req)) return refusal;
  const probe = { endpoint, ctx: call.ctx, req, res: toolResponse(call.res) };
  return endpoint.paymentProbe(refusal, probe).catch((answer: unknown) => answer);
}

/** A refusal as a tool error; a shortfall of an agent's balance also says where to deposit, so it can act. */
async function errorResult(call: ToolCallContext, error: unknown): Promise<CallToolResult> {
  if (error instanceof PaymentRequiredError) return { ...asResult(error.requirements), isError: true };
  const known = knownApiError(error);
  if (!known) call.req.log.error({ err: error }, 'unhandled error in an MCP tool');
  const apiError = known ?? new ApiError('internal_error', 'An internal error occurred.');
  const body: Record<string, unknown> = apiError.toBody();
  if (apiError.code === 'insufficient_balance' && callerKind(call.req, call.res) === 'agent') {
    const balance = await run(call, 'getAgentBalance', {}).catch(() => null);
    const { cost, balance_available: available } = body as { cost: number; balance_available: number };
    body.shortfall = Number((cost - available).toFixed(6));
    if (balance) body.deposit_addresses = (balance.body as { deposit_addresses: unknown }).deposit_addresses;
  }
  return { ...asResult(body), isError: true };
}

export async function callTool(
  call: ToolCallContext,
  tool: ToolDefinition,
  args: Record<string, unknown>,
  extra: Extra,
): Promise<CallToolResult> {
  const req = requestWith(call.req, mcpPaymentHeaders(extra._meta));
  try {
    // The tool's own arguments (wait_seconds) are checked here; the endpoint checks the rest as its route does.
    const checked = tool.input.safeParse(args);
    if (!checked.success) throw validationError(checked.error, 'body');
    const waitSeconds = args.wait_seconds as number | undefined;
    if (tool.creates && waitSeconds && !args.idempotency_key && bearerOf(call.req)) {
      throw new ApiError(
        'validation_error',
        'Invalid body: idempotency_key: required with wait_seconds, so that a retried call answers the task it created rather than creating another.',
      );
    }
    if (tool.follows && waitSeconds) await holdWaitSlot(call);
    const answer = await run(call, operationFor(tool, callerKind(call.req, call.res)), tool.request(args), req);
    if (!tool.follows || !waitSeconds) return answerResult(call, answer.body, paymentMeta(answer));
    const admitted = answer.body as TaskBody & { access_token?: string; webhook_secret?: string };
    // Without a key only the admission's token reads the task; a repeat of a payment whose task has started gets none,
    // so it is answered as admitted (its id), not followed.
    if (!admitted.access_token && !bearerOf(call.req)) return answerResult(call, answer.body, paymentMeta(answer));
    // An x402 payer has no key: its task's token reads the task.
    const reader = admitted.access_token
      ? requestWith(call.req, { authorization: `Bearer ${admitted.access_token}` })
      : call.req;
    const ended = await follow(call, admitted.id, waitSeconds, extra, reader);
    // What only the admission tells an x402 payer is kept in the answer.
    const { access_token, webhook_secret } = admitted;
    const access = { ...(access_token ? { access_token } : {}), ...(webhook_secret ? { webhook_secret } : {}) };
    return answerResult(call, { ...(ended.body as object), ...access }, paymentMeta(ended));
  } catch (error) {
    return errorResult(call, await probed(call, tool, req, error));
  }
}
