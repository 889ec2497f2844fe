// Who a POST /mcp speaks for, before the transport: a call that needs an account and carries no credential answers
// HTTP 401 with the Protected Resource Metadata's address (RFC 9728 §5.1), so a host starts OAuth; an OAuth access
// token that no longer holds answers 401 `invalid_token`, so it refreshes. API keys and keyless calls (tools/list,
// list_models, quote, register_agent, an x402-paid generate) pass as before.
import type { NextFunction, Request, Response } from 'express';
import type { AccountKind } from '../../generated/prisma/client.ts';
import { looksLikeAccessToken } from '../../accounts/oauth/access-tokens.ts';
import { authenticateAccessToken } from '../auth.ts';
import type { ApiContext, Endpoint } from '../endpoint.ts';
import { answeringOperations, type ToolDefinition } from './tools.ts';

const accountKindLocal = 'mcpAccountKind';

export const bearerOf = (req: Request) => /^Bearer\s+(\S+)/i.exec(req.headers.authorization ?? '')?.[1];

/** The caller's account kind where a credential says it: an OAuth grant's account, or an API key's prefix. */
export function callerKind(req: Request, res: Response): AccountKind | undefined {
  const granted = res.locals[accountKindLocal] as AccountKind | undefined;
  if (granted) return granted;
  const bearer = bearerOf(req);
  return bearer === undefined ? undefined : bearer.startsWith('rf_') ? 'agent' : 'developer';
}

interface JsonRpcMessage {
  method?: unknown;
  params?: { name?: unknown };
}

const needsNoAccount = new Set(['none', 'any_or_keyless_payment']);

/** Whether a message can only be answered for an account: a task's methods, or a tool whose endpoint needs a key. */
function needsAccount(message: JsonRpcMessage, tools: Map<string, ToolDefinition>, endpoints: Map<string, Endpoint>) {
  if (typeof message.method !== 'string') return false;
  if (message.method.startsWith('tasks/')) return true;
  if (message.method !== 'tools/call' || typeof message.params?.name !== 'string') return false;
  const tool = tools.get(message.params.name);
  if (!tool) return false;
  return answeringOperations(tool)
    .filter((operation) => operation !== 'getGeneration' || !tool.creates)
    .some((operation) => !needsNoAccount.has(endpoints.get(operation)?.auth ?? 'none'));
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
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const bearer = bearerOf(req);
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
        if (messages.some((message) => message && needsAccount(message, tools, endpoints))) return challenge(res, ctx);
      }
      next();
    } catch (error) {
      next(error);
    }
  };
}
