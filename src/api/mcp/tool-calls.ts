// One MCP tool call: its endpoint run on the MCP request (its key, its address, its x402 payment from `_meta`), the
// answer as a tool result, and a wait for the task to end reported as MCP progress. Errors are tool errors carrying
// the API's { error, message }; an x402 payment asked for follows x402's MCP transport (PaymentRequired as the result).
import type { IncomingHttpHeaders } from 'node:http';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { PaymentRequiredError } from '../../domain/errors.ts';
import { type EndpointAnswer, paysWithoutKey } from '../endpoint.ts';
import { ApiError, validationError } from '../errors.ts';
import { outputContent } from './output-content.ts';
import { knownApiError } from '../middleware/errors.ts';
import { bearerOf } from './mcp-credentials.ts';
import { endpointCall } from '../adapter-call.ts';
import { callerKind, holdWaitSlot, run, type ToolCallContext } from './mcp-call.ts';
import { type Extra, follow, type TaskBody } from './task-follow.ts';
import { operationFor, type ToolDefinition } from './tools.ts';

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
const paymentMeta = (call: ToolCallContext, answer: EndpointAnswer) => call.ctx.payments.mcpReceiptMeta(answer.headers);

/**
 * Arguments refused before the endpoint ran (the tool's own check) go to its payment probe as the endpoint's own
 * refusals do: a paymentless call without a key then gets the payment requirements, as a discovery probe must.
 */
async function probed(call: ToolCallContext, tool: ToolDefinition, paying: IncomingHttpHeaders, refusal: unknown) {
  const endpoint = call.endpoints.get(operationFor(tool, callerKind(call)));
  if (!endpoint?.paymentProbe || !paysWithoutKey(endpoint, call.ctx, { headers: paying })) return refusal;
  const probe = { endpoint, ctx: call.ctx, call: endpointCall(call, endpoint, {}, paying) };
  return endpoint.paymentProbe(refusal, probe).catch((answer: unknown) => answer);
}

/** A refusal as a tool error; a shortfall of an agent's balance also says where to deposit, so it can act. */
async function errorResult(call: ToolCallContext, error: unknown): Promise<CallToolResult> {
  if (error instanceof PaymentRequiredError) return { ...asResult(error.requirements), isError: true };
  const known = knownApiError(error);
  if (!known) call.log.error({ err: error }, 'unhandled error in an MCP tool');
  const apiError = known ?? new ApiError('internal_error', 'An internal error occurred.');
  const body: Record<string, unknown> = apiError.toBody();
  if (apiError.code === 'insufficient_balance' && callerKind(call) === 'agent') {
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
  // The payment `_meta` carries, as the HTTP headers its method reads.
  const paying = { ...call.headers, ...call.ctx.payments.mcpPaymentHeaders(extra._meta) };
  try {
    // The tool's own arguments (wait_seconds) are checked here; the endpoint checks the rest as its route does.
    const checked = tool.input.safeParse(args);
    if (!checked.success) throw validationError(checked.error, 'body');
    const waitSeconds = args.wait_seconds as number | undefined;
    if (tool.creates && waitSeconds && !args.idempotency_key && bearerOf(call.headers)) {
      throw new ApiError(
        'validation_error',
        'Invalid body: idempotency_key: required with wait_seconds, so that a retried call answers the task it created rather than creating another.',
      );
    }
    if (tool.follows && waitSeconds) await holdWaitSlot(call);
    const answer = await run(call, operationFor(tool, callerKind(call)), tool.request(args), paying);
    if (!tool.follows || !waitSeconds) return answerResult(call, answer.body, paymentMeta(call, answer));
    const admitted = answer.body as TaskBody & { access_token?: string; webhook_secret?: string };
    // Without a key only the admission's token reads the task; a repeat of a payment whose task has started gets none,
    // so it is answered as admitted (its id), not followed.
    if (!admitted.access_token && !bearerOf(call.headers))
      return answerResult(call, answer.body, paymentMeta(call, answer));
    // An x402 payer has no key: its task's token reads the task.
    const reader = admitted.access_token
      ? { ...call.headers, authorization: `Bearer ${admitted.access_token}` }
      : call.headers;
    const ended = await follow(call, admitted.id, waitSeconds, extra, reader);
    // What only the admission tells an x402 payer is kept in the answer.
    const { access_token, webhook_secret } = admitted;
    const access = { ...(access_token ? { access_token } : {}), ...(webhook_secret ? { webhook_secret } : {}) };
    return answerResult(call, { ...(ended.body as object), ...access }, paymentMeta(call, ended));
  } catch (error) {
    return errorResult(call, await probed(call, tool, paying, error));
  }
}
