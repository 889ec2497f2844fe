// Bearer API keys: 401 for a missing, malformed, unknown, expired or revoked key; 403 for a key of the wrong kind.
import type { Request, Response } from 'express';
import type { AuthFailure, AuthResult, Principal } from '../accounts/api-keys.ts';
import { createApiKeyAuthentication } from '../accounts/api-key-cache.ts';
import { authenticateTaskToken, isTaskToken } from '../payments/methods/registered.ts';
import type { PrismaClient } from '../db/prisma.ts';
import { ApiError } from './errors.ts';

export type AuthRequirement = 'none' | 'agent' | 'developer' | 'any' | 'any_or_keyless_payment' | 'any_or_task_token';

const failureMessages: Record<AuthFailure | 'task_token', string> = {
  missing: 'Missing API key: send it as `Authorization: Bearer <API key>`.',
  malformed: 'Malformed API key: expected `Authorization: Bearer` with an rf_, sk_ or vega_ key.',
  task_token:
    'A task access token (tt_…) reads its own task only: GET /api/v1/generations/{id} and …/events (and POST …/cancel to cancel it).',
  unknown: 'Invalid API key.',
  expired: 'This API key has expired.',
  revoked: 'This API key has been revoked.',
};

const wrongKind = {
  agent: 'This endpoint needs an agent key (rf_…); a developer key was given.',
  developer:
    'This endpoint needs a developer key (sk_… or vega_…); an agent key was given. Agents use GET /api/v1/agents/balance.',
} as const;

function bearerToken(req: Request): string | undefined | null {
  const header = req.headers.authorization;
  if (header === undefined || header.trim() === '') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

/** An API key, or where the endpoint takes one, an x402 task's token. */
async function authenticateBearer(
  prisma: PrismaClient,
  authenticateApiKey: ReturnType<typeof createApiKeyAuthentication>,
  token: string | undefined | null,
  requirement: AuthRequirement,
): Promise<AuthResult | { ok: false; failure: 'task_token' }> {
  if (token === null) return { ok: false, failure: 'malformed' };
  if (token === undefined || !isTaskToken(token)) return authenticateApiKey(token);
  if (requirement !== 'any_or_task_token') return { ok: false, failure: 'task_token' };
  return authenticateTaskToken(prisma, token);
}

export interface Authenticator {
  (req: Request, res: Response, requirement: Exclude<AuthRequirement, 'none'>): Promise<Principal>;
}

/** `keyCacheMs`: how long an accepted API key is trusted without a database read (a revocation's delay). */
export function createAuthenticator(
  prisma: PrismaClient,
  recordKeyUse: (keyId: string) => void,
  keyCacheMs = 0,
): Authenticator {
  const authenticateApiKey = createApiKeyAuthentication(prisma, keyCacheMs);
  return async (req, res, requirement) => {
    const result = await authenticateBearer(prisma, authenticateApiKey, bearerToken(req), requirement);
    if (!result.ok) {
      res.set('WWW-Authenticate', 'Bearer realm="api"');
      throw new ApiError('unauthorized', failureMessages[result.failure]);
    }
    const { principal } = result;
    if ((requirement === 'agent' || requirement === 'developer') && principal.account.kind !== requirement) {
      throw new ApiError('forbidden', wrongKind[requirement]);
    }
    if (principal.apiKey) recordKeyUse(principal.apiKey.id);
    return principal;
  };
}
