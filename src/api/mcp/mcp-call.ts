// The MCP adapter of the endpoints: a POST /mcp is one exchange with its caller (its credential, its address, its slot
// and its end), and each endpoint a tool runs in it is a call (../call.ts) made of the tool's arguments. Its answers
// and refusals become tool results in tool-calls.ts; headers an endpoint sets are not sent (the stream's went out).
import type { IncomingHttpHeaders } from 'node:http';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import type { AccountKind } from '../../generated/prisma/client.ts';
import type { Call, Exchange } from '../call.ts';
import { callerAddress } from '../client-address.ts';
import { type ApiContext, type Endpoint, executeEndpoint } from '../endpoint.ts';
import { httpExchange } from '../express-adapter.ts';
import { holdLongLived } from '../long-lived.ts';
import { publicBase } from '../public-origin.ts';
import { bearerOf, grantedKind } from './mcp-credentials.ts';
import type { ToolRequest } from './tools.ts';

/** One POST /mcp, which every tool call and task request in it runs on. */
export interface ToolCallContext {
  endpoints: Map<string, Endpoint>;
  ctx: ApiContext;
  /** The POST's own headers: its credential, and an x402 payment where the client sent one as a header. */
  headers: IncomingHttpHeaders;
  address: string;
  base: string;
  exchange: Exchange;
  /** The account kind an OAuth access token's grant names (mcp-credentials.ts). */
  granted?: AccountKind;
  log: Logger;
}

export function toolCallContext(
  endpoints: Map<string, Endpoint>,
  ctx: ApiContext,
  req: Request,
  res: Response,
): ToolCallContext {
  return {
    endpoints,
    ctx,
    headers: req.headers,
    address: callerAddress(req),
    base: publicBase(ctx.config.server, req),
    exchange: httpExchange(res),
    granted: grantedKind(res),
    log: req.log,
  };
}

/** MCP takes the OAuth access tokens issued for it, beside API keys and task tokens. */
const mcpCredentials = { accessTokens: true };

/**
 * An endpoint's call from a tool's request, with `credentials` (the POST's headers, or those with a payment from
 * `_meta` or a task's token). The headers the endpoint declares come from the tool's arguments only.
 */
export function toolCall(
  mcp: ToolCallContext,
  endpoint: Endpoint,
  request: ToolRequest,
  credentials: IncomingHttpHeaders = mcp.headers,
): Call {
  const declared = new Set(Object.keys(endpoint.request?.headers?.shape ?? {}).map((name) => name.toLowerCase()));
  const headers: IncomingHttpHeaders = Object.fromEntries(
    Object.entries(credentials).filter(([name]) => !declared.has(name.toLowerCase())),
  );
  for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value;
  return {
    headers,
    body: request.body,
    query: request.query ?? {},
    params: request.params ?? {},
    hasBody: request.hasBody ?? false,
    // A tool's result is JSON: whatever the endpoint offers besides (CSV) is not asked for.
    accepts: (types) => types[0] ?? false,
    address: mcp.address,
    base: mcp.base,
    authenticate: (requirement) => mcp.ctx.authenticate(headers, requirement, mcpCredentials),
    answerHeaders: {},
    exchange: mcp.exchange,
  };
}

/** Runs an endpoint (by operationId) on the tool's request. */
export function run(
  mcp: ToolCallContext,
  operationId: string,
  request: ToolRequest,
  credentials: IncomingHttpHeaders = mcp.headers,
) {
  const endpoint = mcp.endpoints.get(operationId);
  if (!endpoint) throw new Error(`no endpoint ${operationId}`);
  return executeEndpoint(endpoint, mcp.ctx, toolCall(mcp, endpoint, request, credentials));
}

/** Who `credentials` name, as an endpoint taking a task's token would have them. */
export const authenticated = (mcp: ToolCallContext, credentials: IncomingHttpHeaders) =>
  mcp.ctx.authenticate(credentials, 'any_or_task_token', mcpCredentials);

/** The caller's account kind where a credential says it: an OAuth grant's account, or an API key's prefix. */
export function callerKind(mcp: ToolCallContext): AccountKind | undefined {
  if (mcp.granted) return mcp.granted;
  const bearer = bearerOf(mcp.headers);
  return bearer === undefined ? undefined : bearer.startsWith('rf_') ? 'agent' : 'developer';
}

/**
 * A wait holds one of its caller's slots for the MCP request's life, taken before anything is created; its reads of
 * the task run within it. The caller is its key's account (the key is looked up as the endpoint will), or its address.
 */
export async function holdWaitSlot(mcp: ToolCallContext): Promise<void> {
  const principal = bearerOf(mcp.headers) ? await authenticated(mcp, mcp.headers) : undefined;
  holdLongLived(mcp.ctx.longLived, mcp, principal?.account.id);
}
