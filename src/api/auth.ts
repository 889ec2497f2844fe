// Bearer API keys: 401 for a missing, malformed, unknown, expired or revoked key; 403 for a key of the wrong kind.
import type { IncomingHttpHeaders } from 'node:http';
import { type AuthFailure, authenticateKeyById, type AuthResult, type Principal } from '../accounts/api-keys.ts';
import { createApiKeyAuthentication } from '../accounts/api-key-cache.ts';
import { looksLikeAccessToken, verifyAccessToken } from '../accounts/oauth/access-tokens.ts';
import { isClientGrant } from '../accounts/oauth/grants.ts';
import { isWalletSessionToken, verifyWalletSession } from '../accounts/wallet-sessions.ts';
import type { OAuthSite } from './oauth/oauth-site.ts';
import { authenticateTaskToken, isTaskToken } from '../payments/methods/registered.ts';
import type { PrismaClient } from '../db/prisma.ts';
import { ApiError } from './errors.ts';

export type AuthRequirement = 'none' | 'agent' | 'developer' | 'any' | 'any_or_keyless_payment' | 'any_or_task_token';

type Failure = AuthFailure | 'task_token' | 'access_token' | 'access_token_elsewhere' | 'wallet_session';

const failureMessages: Record<Failure, string> = {
  missing: 'Missing API key: send it as `Authorization: Bearer <API key>`.',
  malformed: 'Malformed API key: expected `Authorization: Bearer` with an rf_, sk_ or vega_ key.',
  task_token:
    'A task access token (tt_…) reads its own task only: GET /api/v1/generations/{id} and …/events (and POST …/cancel to cancel it).',
  unknown: 'Invalid API key.',
  expired: 'This API key has expired.',
  revoked: 'This API key has been revoked.',
  access_token: 'The OAuth access token is invalid or has expired: refresh it, or authorize again.',
  wallet_session: 'The wallet session token (wt_…) is invalid or has expired: sign in with the wallet again.',
  access_token_elsewhere: 'An OAuth access token is for the MCP endpoint (/mcp) only; the REST API takes API keys.',
};

const wrongKind = {
  agent: 'This endpoint needs an agent key (rf_…); a developer key was given.',
  developer:
    'This endpoint needs a developer key (sk_… or vega_…); an agent key was given. Agents use GET /api/v1/agents/balance.',
} as const;

/** The Authorization header's bearer token: undefined when there is none, null when it is not `Bearer <token>`. */
export function bearerToken(headers: IncomingHttpHeaders): string | undefined | null {
  const header = headers.authorization;
  if (header === undefined || header.trim() === '') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

/**
 * An OAuth access token for the MCP endpoint: its grant's key, checked as a key presented itself. Only a key granted to the
 * token's client on the consent screen is one: a token naming any other key is refused, however well signed.
 */
export async function authenticateAccessToken(
  prisma: PrismaClient,
  oauth: OAuthSite,
  token: string,
): Promise<AuthResult | { ok: false; failure: 'access_token' }> {
  const claims = await verifyAccessToken(oauth.tokenSite(), token, oauth.resource);
  if (!claims || !(await isClientGrant(prisma, claims.keyId, claims.clientId)))
    return { ok: false, failure: 'access_token' };
  const result = await authenticateKeyById(prisma, claims.keyId);
  if (!result.ok) return { ok: false, failure: 'access_token' };
  // The token may hold fewer scopes than its grant (a refresh that narrowed them): it acts with those only.
  const key = result.principal.apiKey!;
  const scopes = key.scopes.filter((scope) => claims.scopes.includes(scope));
  return { ok: true, principal: { ...result.principal, apiKey: { ...key, scopes } } };
}

/** A wallet's sign-in session: its wallet account, to read with (see src/accounts/wallet-sessions.ts). */
async function authenticateWalletSession(
  prisma: PrismaClient,
  oauth: OAuthSite | undefined,
  token: string,
): Promise<AuthResult | { ok: false; failure: 'wallet_session' }> {
  const accountId = oauth && (await verifyWalletSession(oauth.tokenSite(), token));
  const account = accountId ? await prisma.account.findUnique({ where: { id: accountId } }) : null;
  if (!account || account.kind !== 'wallet') return { ok: false, failure: 'wallet_session' };
  const { id, kind, name, tier, status } = account;
  return { ok: true, principal: { account: { id, kind, name, tier, status }, apiKey: null, scopes: ['read'] } };
}

/** How a transport takes credentials: MCP also takes the OAuth access tokens issued for it. */
export interface CredentialOptions {
  accessTokens?: boolean;
}

/** An API key; where the endpoint takes one, an x402 task's token; where the transport takes them, an access token. */
async function authenticateBearer(
  prisma: PrismaClient,
  authenticateApiKey: ReturnType<typeof createApiKeyAuthentication>,
  headers: IncomingHttpHeaders,
  requirement: AuthRequirement,
  { oauth, accessTokens }: { oauth: OAuthSite | undefined; accessTokens: boolean },
): Promise<AuthResult | { ok: false; failure: Failure }> {
  const token = bearerToken(headers);
  if (token === null) return { ok: false, failure: 'malformed' };
  if (token !== undefined && isWalletSessionToken(token)) return authenticateWalletSession(prisma, oauth, token);
  if (token !== undefined && oauth && looksLikeAccessToken(token))
    return accessTokens
      ? authenticateAccessToken(prisma, oauth, token)
      : { ok: false, failure: 'access_token_elsewhere' };
  if (token === undefined || !isTaskToken(token)) return authenticateApiKey(token);
  if (requirement !== 'any_or_task_token') return { ok: false, failure: 'task_token' };
  return authenticateTaskToken(prisma, token);
}

/** The caller the headers' credentials name; a refusal is 401 (with its `WWW-Authenticate`) or 403. */
export interface Authenticator {
  (
    headers: IncomingHttpHeaders,
    requirement: Exclude<AuthRequirement, 'none'>,
    options?: CredentialOptions,
  ): Promise<Principal>;
}

/**
 * `keyCacheMs`: how long an accepted API key is trusted without a database read (a revocation's delay). `oauth`:
 * where access tokens are accepted (none: API keys and task tokens only).
 */
export function createAuthenticator(
  prisma: PrismaClient,
  recordKeyUse: (keyId: string) => void,
  keyCacheMs = 0,
  oauth?: OAuthSite,
): Authenticator {
  const authenticateApiKey = createApiKeyAuthentication(prisma, keyCacheMs);
  return async (headers, requirement, options = {}) => {
    const accessTokens = options.accessTokens === true;
    const result = await authenticateBearer(prisma, authenticateApiKey, headers, requirement, { oauth, accessTokens });
    if (!result.ok) {
      const challenge = { 'WWW-Authenticate': 'Bearer realm="api"' };
      throw new ApiError('unauthorized', failureMessages[result.failure], {}, challenge);
    }
    const { principal } = result;
    if ((requirement === 'agent' || requirement === 'developer') && principal.account.kind !== requirement) {
      throw new ApiError('forbidden', wrongKind[requirement]);
    }
    if (principal.apiKey) recordKeyUse(principal.apiKey.id);
    return principal;
  };
}
