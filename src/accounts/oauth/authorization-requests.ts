// An authorization request the SDK's /authorize checked (client, redirect URI, PKCE challenge), carried signed to the
// console's consent screen and back, so nothing is stored for a request nobody answers. It lives ten minutes, and is
// answered once (its id, recorded by grants.ts when answered).
import { randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import type { TokenSite } from './access-tokens.ts';

export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  state?: string;
  /** The gateway's scopes asked for (oauth-scopes.ts). */
  scopes: string[];
  /** The resource the tokens will be for (RFC 8707): the MCP endpoint's URL. */
  resource: string;
}

/** A request as read back: what was asked, its id and when it stops being answerable. */
export interface PendingRequest extends AuthorizationRequest {
  id: string;
  expiresAt: Date;
}

const requestSeconds = 600;
const audience = 'consent';
const typ = 'oauth-authz-req+jwt';

export async function signAuthorizationRequest(site: TokenSite, request: AuthorizationRequest): Promise<string> {
  return new SignJWT({ request })
    .setProtectedHeader({ alg: 'HS256', typ })
    .setIssuer(site.issuer)
    .setAudience(audience)
    .setIssuedAt()
    .setExpirationTime(`${requestSeconds}s`)
    .setJti(randomUUID())
    .sign(site.keys.authorization_request);
}

/** The request, or null when it is not one we signed or it has expired. */
export async function readAuthorizationRequest(site: TokenSite, token: string): Promise<PendingRequest | null> {
  try {
    const { payload } = await jwtVerify(token, site.keys.authorization_request, {
      issuer: site.issuer,
      audience,
      typ,
      algorithms: ['HS256'],
      requiredClaims: ['jti', 'exp'],
    });
    return { ...(payload.request as AuthorizationRequest), id: payload.jti!, expiresAt: new Date(payload.exp! * 1000) };
  } catch {
    return null;
  }
}
