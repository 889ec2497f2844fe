// OAuth access tokens: JWTs (RFC 9068 shape, HS256 with the access tokens' own key) naming the grant's key, the client
// and the resource they were issued for (RFC 8707). Verifying checks the signature, type, issuer, audience and expiry;
// whether the key still stands, and is that client's grant, is the caller's next read.
import { randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import type { TokenKeys } from './signing-secret.ts';

export const accessTokenSeconds = 3600;

export interface AccessTokenClaims {
  keyId: string;
  clientId: string;
  scopes: string[];
  resource: string;
  expiresAt: Date;
}

export interface TokenSite {
  issuer: string;
  /** One key per kind of token (signing-secret.ts). */
  keys: TokenKeys;
}

export async function signAccessToken(
  site: TokenSite,
  grant: Omit<AccessTokenClaims, 'expiresAt'>,
  now = new Date(),
): Promise<{ token: string; expiresAt: Date }> {
  const expiresAt = new Date(now.getTime() + accessTokenSeconds * 1000);
  const token = await new SignJWT({ client_id: grant.clientId, scope: grant.scopes.join(' ') })
    .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
    .setIssuer(site.issuer)
    .setSubject(grant.keyId)
    .setAudience(grant.resource)
    .setIssuedAt(Math.floor(now.getTime() / 1000))
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .setJti(randomUUID())
    .sign(site.keys.access_token);
  return { token, expiresAt };
}

/** A JWS in compact form: what an access token looks like (API keys and task tokens never have a dot). */
export const looksLikeAccessToken = (token: string) => /^[\w-]+\.[\w-]+\.[\w-]+$/.test(token);

/** The token's claims, or null when it is not one of ours for `resource` (forged, expired, for another resource). */
export async function verifyAccessToken(
  site: TokenSite,
  token: string,
  resource: string,
): Promise<AccessTokenClaims | null> {
  try {
    const { payload } = await jwtVerify(token, site.keys.access_token, {
      issuer: site.issuer,
      audience: resource,
      typ: 'at+jwt',
      algorithms: ['HS256'],
      requiredClaims: ['sub', 'exp', 'client_id'],
    });
    return {
      keyId: payload.sub!,
      clientId: String(payload.client_id),
      scopes: typeof payload.scope === 'string' && payload.scope ? payload.scope.split(' ') : [],
      resource,
      expiresAt: new Date(payload.exp! * 1000),
    };
  } catch {
    return null;
  }
}
