// The MCP adapter of the endpoints: a POST /mcp is one exchange with its caller (its credential, its address, its slot
// and its end), and each endpoint a tool runs in it is a call (../adapter-call.ts) made of the tool's arguments. Its
// answers and refusals become tool results in tool-calls.ts.
import type { IncomingHttpHeaders } from 'node:http';
import type { Request, Response } from 'express';
import type { AccountKind } from '../../generated/prisma/client.ts';
import { type AdapterExchange, adapterExchange } from '../adapter-call.ts';
import type { ApiContext, Endpoint } from '../endpoint.ts';
import { holdLongLived } from '../long-lived.ts';
import { bearerOf, grantedKind } from './mcp-credentials.ts';

export { run } from '../adapter-call.ts';

/** One POST /mcp, which every tool call and task request in it runs on. */
export interface ToolCallContext extends AdapterExchange {
  /** The account kind an OAuth access token's grant names (mcp-credentials.ts). */
  granted?: AccountKind;
}

/** MCP takes the OAuth access tokens issued for it, beside API keys and task tokens. */
const mcpCredentials = { accessTokens: true };

export function toolCallContext(
  endpoints: Map<string, Endpoint>,
  ctx: ApiContext,
  req: Request,
  res: Response,
): ToolCallContext {
  return { ...adapterExchange(endpoints, ctx, req, res, mcpCredentials), granted: grantedKind(res) };
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
