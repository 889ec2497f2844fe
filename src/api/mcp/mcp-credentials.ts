// Who a POST /mcp speaks for, before the transport: a call that needs an account and carries no credential answers
// HTTP 401 with the Protected Resource Metadata's address (RFC 9728 §5.1), so a host starts OAuth; an OAuth access
// token that no longer holds answers 401 `invalid_token`, so it refreshes. API keys and keyless calls (tools/list,
// list_models, register_agent, and the paid tools, generate and top_up, where x402 is on) pass as before.
import type { IncomingHttpHeaders } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { AccountKind } from '../../generated/prisma/client.ts';
import { looksLikeAccessToken } from '../../accounts/oauth/access-tokens.ts';
import { authenticateAccessToken, bearerToken } from '../auth.ts';
import type { ApiContext, Endpoint } from '../endpoint.ts';
import { claimsTasks, isModernEnvelope, legacyTaskMethods, modernTaskMethods } from './tasks-extension.ts';
import { answeringOperations, type ToolDefinition } from './tools.ts';

const accountKindLocal = 'mcpAccountKind';

/** The bearer token of a well-formed Authorization header. */
export const bearerOf = (headers: IncomingHttpHeaders) => bearerToken(headers) ?? undefined;

/** The account kind of the OAuth grant the POST's access token names, once checked here. */
export const grantedKind = (res: Response) => res.locals[accountKindLocal] as AccountKind | undefined;

interface JsonRpcMessage {
  method?: unknown;
  params?: { name?: unknown; task?: unknown; _meta?: Record<string, unknown> };
}

/** Whether an endpoint answers a caller without an account: one open to all, or paid with x402 where it is on. */
const answersKeyless = (endpoint: Endpoint | undefined, ctx: ApiContext) =>
  !endpoint ||
  endpoint.auth === 'none' ||
  (endpoint.auth === 'any_or_keyless_payment' && ctx.payments.takesKeyless(ctx.config));

/**
 * Whether a message can only be answered for an account: a task method its revision serves (on 2026, to a client that
 * takes tasks), a 2025 call made as a task (read later with the same credential), or a tool whose endpoint needs a
 * key. Any other is answered, or refused, the same for everyone.
 */
function needsAccount(message: JsonRpcMessage, call: CredentialContext) {
  if (typeof message.method !== 'string') return false;
  const meta = message.params?._meta;
  const modern = isModernEnvelope(meta);
  if (message.method.startsWith('tasks/'))
    return modern ? modernTaskMethods.has(message.method) && claimsTasks(meta) : legacyTaskMethods.has(message.method);
  if (message.method !== 'tools/call' || typeof message.params?.name !== 'string') return false;
  if (message.params.task !== undefined && !modern) return true;
  const tool = call.tools.get(message.params.name);
  if (!tool) return false;
  return answeringOperations(tool)
    .filter((operation) => operation !== 'getGeneration' || !tool.creates)
    .some((operation) => !answersKeyless(call.endpoints.get(operation), call.ctx));
}

interface CredentialContext {
  ctx: ApiContext;
  tools: Map<string, ToolDefinition>;
  endpoints: Map<string, Endpoint>;
}

function challenge(res: Response, ctx: ApiContext, error?: { code: string; description: string }) {
  const parts = [
    ...(error ? [`error="${error.code}"`, `error_description="${error.description}"`] : []),
    `resource_metadata="${ctx.oauth.resourceMetadataUrl}"`,
  ];
  res
    .status(401)
    .set('WWW-Authenticate', `Bearer ${parts.join(', ')}`)
    .json({
      error: 'unauthorized',
      message: error
        ? error.description
        : 'This call needs an account: send an API key as a Bearer token, or authorize with OAuth (see the WWW-Authenticate header).',
    });
}

export function mcpCredentials(ctx: ApiContext, tools: Map<string, ToolDefinition>, endpoints: Map<string, Endpoint>) {
  const call = { ctx, tools, endpoints };
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const bearer = bearerOf(req.headers);
      if (bearer !== undefined && looksLikeAccessToken(bearer)) {
        const result = await authenticateAccessToken(ctx.prisma, ctx.oauth, bearer);
        if (!result.ok)
          return challenge(res, ctx, {
            code: 'invalid_token',
            description: 'The access token is invalid, expired or revoked.',
          });
        res.locals[accountKindLocal] = result.principal.account.kind;
        return next();
      }
      if (bearer === undefined && req.headers.authorization === undefined) {
        const messages = (Array.isArray(req.body) ? req.body : [req.body]) as JsonRpcMessage[];
        if (messages.some((message) => message && needsAccount(message, call))) return challenge(res, ctx);
      }
      next();
    } catch (error) {
      next(error);
    }
  };
}
