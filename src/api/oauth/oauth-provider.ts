// The MCP SDK's OAuthServerProvider on the gateway's own grants (src/accounts/oauth/): /authorize sends the person to
// the console's consent screen with the checked request signed; /token redeems codes and refresh tokens; access tokens
// are JWTs for the MCP endpoint. Refusals are the SDK's OAuth errors, so they answer 400 with the RFC's codes.
// Revoking needs a token still good (an expired access token names a grant it can no longer speak for).
import {
  InvalidGrantError,
  InvalidScopeError,
  InvalidTargetError,
  InvalidTokenError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { PrismaClient } from '../../db/prisma.ts';
import { revokeApiKey } from '../../accounts/api-keys.ts';
import {
  accessTokenSeconds,
  looksLikeAccessToken,
  signAccessToken,
  verifyAccessToken,
} from '../../accounts/oauth/access-tokens.ts';
import { signAuthorizationRequest } from '../../accounts/oauth/authorization-requests.ts';
import {
  codeChallenge,
  type Grant,
  GrantRefusedError,
  isClientGrant,
  issueRefreshToken,
  redeemCode,
  redeemRefreshToken,
  revokeGrantOfRefreshToken,
  successorRefreshToken,
} from '../../accounts/oauth/grants.ts';
import { requestedScopes } from '../../accounts/oauth/oauth-scopes.ts';
import type { OAuthSite } from './oauth-site.ts';

/** The SDK's error for a grant refused by the gateway's rules; anything else stays a server error. */
async function refusedAsOAuth<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (!(error instanceof GrantRefusedError)) throw error;
    const refusals = {
      invalid_target: InvalidTargetError,
      invalid_scope: InvalidScopeError,
      invalid_grant: InvalidGrantError,
    };
    throw new refusals[error.reason](error.message);
  }
}

/** RFC 8707: tokens are for the MCP endpoint only (absent: that is what is meant). */
function resourceOf(site: OAuthSite, asked: URL | undefined): string {
  if (asked === undefined) return site.resource;
  const href = asked.href.replace(/\/$/, '');
  if (href !== site.resource) throw new InvalidTargetError(`This server issues tokens for ${site.resource} only.`);
  return site.resource;
}

export function gatewayOAuthProvider(prisma: PrismaClient, site: OAuthSite): OAuthServerProvider {
  /** An access token for `accessScopes` and the grant's next refresh token (after `presented`: its one successor). */
  const tokensFor = async (grant: Grant, accessScopes = grant.scopes, presented?: string): Promise<OAuthTokens> => {
    const tokenSite = site.tokenSite();
    const access = await signAccessToken(tokenSite, { ...grant, scopes: accessScopes });
    const successor = presented && successorRefreshToken(tokenSite.keys.refresh_successor, presented);
    const refresh = await issueRefreshToken(prisma, grant, successor || undefined);
    return {
      access_token: access.token,
      token_type: 'Bearer',
      expires_in: accessTokenSeconds,
      scope: accessScopes.join(' '),
      refresh_token: refresh.token,
    };
  };
  return {
    clientsStore: site.clients,
    async authorize(client, params, res) {
      const scopes = requestedScopes(params.scopes);
      const request = await signAuthorizationRequest(site.tokenSite(), {
        clientId: client.client_id,
        redirectUri: params.redirectUri,
        codeChallenge: params.codeChallenge,
        ...(params.state !== undefined && { state: params.state }),
        scopes,
        resource: resourceOf(site, params.resource),
      });
      res.redirect(302, `${site.consentUrl}?request=${encodeURIComponent(request)}`);
    },
    challengeForAuthorizationCode: (client, code) => refusedAsOAuth(codeChallenge(prisma, client.client_id, code)),
    async exchangeAuthorizationCode(client, code, _verifier, redirectUri, resource) {
      const grant = await refusedAsOAuth(
        redeemCode(prisma, {
          clientId: client.client_id,
          code,
          ...(redirectUri !== undefined && { redirectUri }),
          resource: resourceOf(site, resource),
        }),
      );
      return tokensFor(grant);
    },
    async exchangeRefreshToken(client, refreshToken, scopes, resource) {
      const grant = await refusedAsOAuth(
        redeemRefreshToken(prisma, {
          clientId: client.client_id,
          token: refreshToken,
          ...(scopes !== undefined && { scopes }),
          resource: resourceOf(site, resource),
        }),
      );
      return tokensFor(grant, grant.accessScopes, refreshToken);
    },
    async verifyAccessToken(token): Promise<AuthInfo> {
      const claims = await verifyAccessToken(site.tokenSite(), token, site.resource);
      if (!claims) throw new InvalidTokenError('The access token is invalid or has expired.');
      return {
        token,
        clientId: claims.clientId,
        scopes: claims.scopes,
        expiresAt: Math.floor(claims.expiresAt.getTime() / 1000),
        resource: new URL(claims.resource),
        extra: { keyId: claims.keyId },
      };
    },
    // RFC 7009: either token ends the whole grant (its key); an unknown or foreign token is not an error.
    async revokeToken(client, { token }) {
      if (!looksLikeAccessToken(token)) return revokeGrantOfRefreshToken(prisma, client.client_id, token);
      const claims = await verifyAccessToken(site.tokenSite(), token, site.resource);
      if (claims?.clientId === client.client_id && (await isClientGrant(prisma, claims.keyId, client.client_id)))
        await revokeApiKey(prisma, claims.keyId);
    },
  };
}
