// An OAuth grant is a key: a sub-key of the key that consented, with the policy chosen on the consent screen. Its
// authorization code and refresh tokens are stored as SHA-256 only; each is used once (a code or refresh token
// presented twice revokes the grant, RFC 9700 §4.14), and revoking the key ends every token of the grant at once.
// A consent request is answered once, and a grant whose code expired unredeemed is revoked.
import { createHmac } from 'node:crypto';
import type { PrismaClient } from '../../db/prisma.ts';
import { DomainError } from '../../domain/errors.ts';
import { randomBase62, toBase62 } from '../../domain/ids.ts';
import type { KeyScope } from '../key-policy.ts';
import { hashApiKey, revokeApiKey } from '../api-keys.ts';
import { createKey, type KeyChanges, type KeyHolder } from '../managed-keys.ts';
import type { AuthorizationRequest, PendingRequest } from './authorization-requests.ts';
import { oauthScopes } from './oauth-scopes.ts';

const codeSeconds = 300;
const refreshTokenDays = 30;
/** A host's calls that find their access token expired at once each refresh with the same token: all are answered. */
const refreshGraceMs = 30_000;

/** What a token request may not have: `invalid_grant`, `invalid_target` (another resource), `invalid_scope`. */
export class GrantRefusedError extends Error {
  override name = 'GrantRefusedError';
  constructor(
    readonly reason: 'invalid_grant' | 'invalid_target' | 'invalid_scope',
    message: string,
  ) {
    super(message);
  }
}

/** What a redeemed code or refresh token stands for. */
export interface Grant {
  keyId: string;
  clientId: string;
  scopes: KeyScope[];
  resource: string;
}

/** A consent request answered already (allowed or denied): a second answer would mint a second grant. */
export class RequestAnsweredError extends DomainError {
  override name = 'RequestAnsweredError';
  constructor() {
    super('conflict', 'This authorization request was answered already: start again from the application.');
  }
}

/**
 * Answers the request once: claimed first, so a second answer (in this process or another) is refused and mints
 * nothing; an answer refused on its merits (a policy wider than the key's) gives the claim back, to be answered again.
 */
export async function answerOnce<T>(
  prisma: PrismaClient,
  request: PendingRequest,
  answer: () => Promise<T>,
): Promise<T> {
  const claimed = await prisma.oAuthAnsweredRequest.createMany({
    data: [{ id: request.id, expiresAt: request.expiresAt }],
    skipDuplicates: true,
  });
  if (claimed.count === 0) throw new RequestAnsweredError();
  try {
    return await answer();
  } catch (error) {
    await prisma.oAuthAnsweredRequest.deleteMany({ where: { id: request.id } });
    throw error;
  }
}

/** The person's consent: a grant key for the client, and the code that the client exchanges for its tokens. */
export async function grantAuthorization(
  prisma: PrismaClient,
  holder: KeyHolder,
  request: AuthorizationRequest & { scopes: KeyScope[] },
  consent: KeyChanges & { name: string },
  maxRatePerMinute: number | null,
): Promise<{ code: string; keyId: string }> {
  const key = await createKey(
    prisma,
    holder,
    { ...consent, scopes: request.scopes, oauthClientId: request.clientId },
    maxRatePerMinute,
  );
  const code = `oc_${randomBase62(32)}`;
  await prisma.oAuthCode.create({
    data: {
      codeHash: hashApiKey(code),
      clientId: request.clientId,
      apiKeyId: key.id,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      resource: request.resource,
      scopes: request.scopes,
      expiresAt: new Date(Date.now() + codeSeconds * 1000),
    },
  });
  return { code, keyId: key.id };
}

/** Whether `keyId` is a key granted to `clientId` on the consent screen, with OAuth's scopes only: what a token may name. */
export async function isClientGrant(prisma: PrismaClient, keyId: string, clientId: string): Promise<boolean> {
  const key = await prisma.apiKey.findUnique({ where: { id: keyId }, select: { oauthClientId: true, scopes: true } });
  const grantable: readonly string[] = oauthScopes;
  return key !== null && key.oauthClientId === clientId && key.scopes.every((scope) => grantable.includes(scope));
}

/** The PKCE challenge a code was issued with (checked by the SDK's token handler before the exchange). */
export async function codeChallenge(prisma: PrismaClient, clientId: string, code: string): Promise<string> {
  const row = await prisma.oAuthCode.findUnique({ where: { codeHash: hashApiKey(code) } });
  if (!row || row.clientId !== clientId) throw new GrantRefusedError('invalid_grant', 'Unknown authorization code.');
  return row.codeChallenge;
}

/** Whether the grant's key is still good: not revoked, not expired. */
async function keyStands(prisma: PrismaClient, keyId: string, now: Date): Promise<Date | null | false> {
  const key = await prisma.apiKey.findUnique({ where: { id: keyId }, select: { revokedAt: true, expiresAt: true } });
  if (!key || key.revokedAt || (key.expiresAt && key.expiresAt <= now)) return false;
  return key.expiresAt;
}

const scopesOf = (stored: string[]) => stored as KeyScope[];

/**
 * Claims a code or refresh token once: every check first (a refused request leaves it usable), then the claim. One
 * claimed already revokes its grant, except a refresh token presented again within `graceMs` of its use (a host's
 * concurrent calls refreshing at once), which is answered as the first was.
 */
async function claimOnce(
  prisma: PrismaClient,
  token: { claim(): Promise<{ count: number }>; usedAt(): Promise<Date | null | undefined>; apiKeyId: string },
  now: Date,
  { what, graceMs = 0 }: { what: string; graceMs?: number },
) {
  if ((await token.claim()).count === 1) return;
  // Claimed by another request, maybe one still running alongside this one: when?
  const usedAt = await token.usedAt();
  if (usedAt && now.getTime() - usedAt.getTime() < graceMs) return;
  await revokeApiKey(prisma, token.apiKeyId);
  throw new GrantRefusedError('invalid_grant', `This ${what} was used already; its grant is revoked.`);
}

async function checkStanding(
  prisma: PrismaClient,
  row: { expiresAt: Date; resource: string; apiKeyId: string },
  input: { resource?: string },
  now: Date,
  what: string,
) {
  if (row.expiresAt <= now) throw new GrantRefusedError('invalid_grant', `This ${what} has expired.`);
  if (input.resource !== undefined && input.resource !== row.resource)
    throw new GrantRefusedError('invalid_target', `This ${what} is for ${row.resource}.`);
  if ((await keyStands(prisma, row.apiKeyId, now)) === false)
    throw new GrantRefusedError('invalid_grant', 'This grant has been revoked or has expired.');
}

/** A code for its grant, once; a code used twice revokes what it granted. */
export async function redeemCode(
  prisma: PrismaClient,
  input: { clientId: string; code: string; redirectUri?: string; resource?: string },
  now = new Date(),
): Promise<Grant> {
  const codeHash = hashApiKey(input.code);
  const row = await prisma.oAuthCode.findUnique({ where: { codeHash } });
  if (!row || row.clientId !== input.clientId)
    throw new GrantRefusedError('invalid_grant', 'Unknown authorization code.');
  if (!row.usedAt) {
    if (input.redirectUri !== undefined && input.redirectUri !== row.redirectUri)
      throw new GrantRefusedError('invalid_grant', 'redirect_uri differs from the authorization request.');
    // A code that expired unredeemed leaves no token to its grant: the grant ends with it (as the sweep ends others).
    if (row.expiresAt <= now) await revokeApiKey(prisma, row.apiKeyId);
    await checkStanding(prisma, row, input, now, 'authorization code');
  }
  const code = {
    claim: () => prisma.oAuthCode.updateMany({ where: { codeHash, usedAt: null }, data: { usedAt: now } }),
    usedAt: async () => row.usedAt,
    apiKeyId: row.apiKeyId,
  };
  await claimOnce(prisma, code, now, { what: 'authorization code' });
  return { keyId: row.apiKeyId, clientId: row.clientId, scopes: scopesOf(row.scopes), resource: row.resource };
}

/**
 * The refresh token that follows `presented`: the same at every presentation (an HMAC of it), so a host's calls
 * refreshing at once within the grace window all get the one successor, not a family each.
 */
export const successorRefreshToken = (key: Uint8Array, presented: string) =>
  `ort_${toBase62(createHmac('sha256', key).update(presented).digest())}`;

/** A refresh token for the grant (new, or `token`: a successor), living 30 days or until the grant's key expires. */
export async function issueRefreshToken(
  prisma: PrismaClient,
  grant: Grant,
  token = `ort_${randomBase62(32)}`,
  now = new Date(),
): Promise<{ token: string; expiresAt: Date }> {
  const keyExpiry = await keyStands(prisma, grant.keyId, now);
  const ordinary = new Date(now.getTime() + refreshTokenDays * 86_400_000);
  const expiresAt = keyExpiry && keyExpiry < ordinary ? keyExpiry : ordinary;
  // A successor issued already (the same token presented again within the grace window) stays as it was.
  await prisma.oAuthRefreshToken.createMany({
    skipDuplicates: true,
    data: {
      tokenHash: hashApiKey(token),
      clientId: grant.clientId,
      apiKeyId: grant.keyId,
      resource: grant.resource,
      scopes: grant.scopes,
      expiresAt,
    },
  });
  return { token, expiresAt };
}

/**
 * A refresh token for its grant, once (the caller issues the next, with the same scopes); presented again, it revokes
 * the grant, unless within a few seconds of its use. The access token may be narrowed to `scopes` (RFC 6749 §6).
 */
export async function redeemRefreshToken(
  prisma: PrismaClient,
  input: { clientId: string; token: string; resource?: string; scopes?: string[] },
  now = new Date(),
): Promise<Grant & { accessScopes: KeyScope[] }> {
  const tokenHash = hashApiKey(input.token);
  const row = await prisma.oAuthRefreshToken.findUnique({ where: { tokenHash } });
  if (!row || row.clientId !== input.clientId) throw new GrantRefusedError('invalid_grant', 'Unknown refresh token.');
  const accessScopes = input.scopes?.length ? input.scopes : row.scopes;
  if (!accessScopes.every((scope) => row.scopes.includes(scope)))
    throw new GrantRefusedError('invalid_scope', `The grant holds the scopes ${row.scopes.join(' ')} only.`);
  await checkStanding(prisma, row, input, now, 'refresh token');
  const refreshToken = {
    claim: () => prisma.oAuthRefreshToken.updateMany({ where: { tokenHash, usedAt: null }, data: { usedAt: now } }),
    usedAt: async () => (await prisma.oAuthRefreshToken.findUnique({ where: { tokenHash } }))?.usedAt,
    apiKeyId: row.apiKeyId,
  };
  await claimOnce(prisma, refreshToken, now, { what: 'refresh token', graceMs: refreshGraceMs });
  return {
    keyId: row.apiKeyId,
    clientId: row.clientId,
    scopes: scopesOf(row.scopes),
    resource: row.resource,
    accessScopes: scopesOf(accessScopes),
  };
}

/** Revokes the grant a client's refresh token belongs to (RFC 7009: an unknown token is not an error). */
export async function revokeGrantOfRefreshToken(prisma: PrismaClient, clientId: string, token: string) {
  const row = await prisma.oAuthRefreshToken.findUnique({ where: { tokenHash: hashApiKey(token) } });
  if (row && row.clientId === clientId) await revokeApiKey(prisma, row.apiKeyId);
}
