// Bearer API keys: 401 for a missing, malformed, unknown, expired or revoked key; 403 for a key of the wrong kind.
import type { Request, Response } from 'express';
import { type AuthFailure, authenticateApiKey, type Principal } from '../services/api-keys.ts';
import type { PrismaClient } from '../db/prisma.ts';
import { ApiError } from './errors.ts';

export type AuthRequirement = 'none' | 'agent' | 'developer' | 'any' | 'any_or_x402';

const failureMessages: Record<AuthFailure, string> = {
  missing: 'Missing API key: send it as `Authorization: Bearer <API key>`.',
  malformed: 'Malformed API key: expected `Authorization: Bearer` with an rf_, sk_ or vega_ key.',
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

export interface Authenticator {
  (req: Request, res: Response, requirement: Exclude<AuthRequirement, 'none'>): Promise<Principal>;
}

export function createAuthenticator(prisma: PrismaClient, recordKeyUse: (keyId: string) => void): Authenticator {
  return async (req, res, requirement) => {
    const token = bearerToken(req);
    const result =
      token === null ? { ok: false as const, failure: 'malformed' as const } : await authenticateApiKey(prisma, token);
    if (!result.ok) {
      res.set('WWW-Authenticate', 'Bearer realm="api"');
      throw new ApiError('unauthorized', failureMessages[result.failure]);
    }
    const { principal } = result;
    if ((requirement === 'agent' || requirement === 'developer') && principal.account.kind !== requirement) {
      throw new ApiError('forbidden', wrongKind[requirement]);
    }
    recordKeyUse(principal.apiKey.id);
    return principal;
  };
}
