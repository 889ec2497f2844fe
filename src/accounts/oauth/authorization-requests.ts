// An authorization request the SDK's /authorize checked (client, redirect URI, PKCE challenge), carried signed to the
// console's consent screen and back, so nothing is stored for a request nobody answers. It lives ten minutes.
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
    .sign(site.secret);
}

/** The request, or null when it is not one we signed or it has expired. */
export async function readAuthorizationRequest(site: TokenSite, token: string): Promise<AuthorizationRequest | null> {
  try {
    const { payload } = await jwtVerify(token, site.secret, {
      issuer: site.issuer,
      audience,
      typ,
      algorithms: ['HS256'],
    });
    return payload.request as AuthorizationRequest;
  } catch {
    return null;
  }
}
