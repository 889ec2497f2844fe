// The console's consent screen for OAuth on /mcp: what an authorization request asks, and the person's answer (a
// grant key with the policy they chose, and the code the host redeems at /oauth/token).
import { readAuthorizationRequest, type AuthorizationRequest } from '../../../accounts/oauth/authorization-requests.ts';
import { answerOnce, grantAuthorization } from '../../../accounts/oauth/grants.ts';
import { redirectStaysLocal } from '../../../accounts/oauth/clients.ts';
import { oauthPaths } from '../../oauth/oauth-router.ts';
import { requestedScopes } from '../../../accounts/oauth/oauth-scopes.ts';
import { redirectUriMatches } from '@modelcontextprotocol/sdk/server/auth/handlers/authorize.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { z } from 'zod';
import type { Principal } from '../../../accounts/api-keys.ts';
import { type ApiContext, defineEndpoint } from '../../endpoint.ts';
import { ApiError } from '../../errors.ts';
import {
  ConsentAnswerBodySchema,
  ConsentAnsweredSchema,
  ConsentQuerySchema,
  ConsentRequestSchema,
} from './oauth.schemas.ts';
import { changesOf, holderOf, tierRatePerMinute } from '../keys/keys.routes.ts';

const tags = ['OAuth'];

/**
 * The request and its client, or a 400 naming `request`: not ours, tampered with, expired, its client gone, or its
 * redirect URI no longer the client's.
 */
async function pendingRequest(ctx: ApiContext, token: string, where: 'query' | 'body') {
  const request = await readAuthorizationRequest(ctx.oauth.tokenSite(), token);
  const client = request && (await ctx.oauth.clients.getClient(request.clientId));
  // A metadata document may have changed since /oauth/authorize checked the redirect URI: checked again.
  const redirects = client?.redirect_uris.some((uri) => redirectUriMatches(request!.redirectUri, uri));
  if (!request || !client || !redirects)
    throw new ApiError(
      'validation_error',
      `Invalid ${where}: request: not an authorization request of this gateway, or it has expired (ten minutes): start again from the application.`,
    );
  return { request, client };
}

/**
 * The client's redirect URI with the answer's parameters, and the issuer (RFC 9207). A refusal goes there only when it
 * stays on the person's machine; else to the gateway's own page (never an open redirect for a client anyone registers).
 */
function redirectWith(ctx: ApiContext, request: AuthorizationRequest, answer: Record<string, string>): string {
  if (answer.error !== undefined && !redirectStaysLocal(request.redirectUri))
    return `${ctx.oauth.issuer}${oauthPaths.ended}?error=${encodeURIComponent(answer.error)}`;
  const url = new URL(request.redirectUri);
  for (const [name, value] of Object.entries(answer)) url.searchParams.set(name, value);
  if (request.state !== undefined) url.searchParams.set('state', request.state);
  url.searchParams.set('iss', ctx.oauth.issuer);
  return url.href;
}

/** The person's answer: a grant and its code, or a refusal, and where the browser goes with it. */
async function answer(
  ctx: ApiContext,
  principal: Principal,
  body: z.infer<typeof ConsentAnswerBodySchema>,
  request: AuthorizationRequest,
  client: OAuthClientInformationFull,
) {
  if (!body.approve)
    return {
      redirect_to: redirectWith(ctx, request, { error: 'access_denied', error_description: 'The person refused.' }),
      key_id: null,
    };
  const { name, ...changes } = changesOf({
    ...body,
    name: body.name ?? (client.client_name ?? client.client_id).slice(0, 100),
  });
  const granted = await grantAuthorization(
    ctx.prisma,
    holderOf(principal),
    { ...request, scopes: requestedScopes(request.scopes) },
    { ...changes, name: name! },
    tierRatePerMinute(ctx.config, principal.account.tier),
  );
  return { redirect_to: redirectWith(ctx, request, { code: granted.code }), key_id: granted.keyId };
}

export const oauthEndpoints = [
  defineEndpoint({
    method: 'get',
    path: '/oauth/consent',
    operationId: 'getOAuthConsent',
    summary: 'What an OAuth authorization request asks for',
    description:
      "Gateway extension, for the console's consent screen. What an MCP host's OAuth authorization request (the `request` that /oauth/authorize sent the person to the console with, valid ten minutes) asks for: the client, where the answer goes, the scopes (`generate`, `read`) and the resource (the MCP endpoint). 400 naming `request` when it is not one of this gateway's or has expired. Needs the `keys` scope.",
    tags,
    auth: 'any',
    scope: 'keys',
    request: { query: ConsentQuerySchema },
    success: { status: 200, description: 'The client and what it asks for', schema: ConsentRequestSchema },
    handle: async ({ query, ctx }) => {
      const { request, client } = await pendingRequest(ctx, query.request, 'query');
      return {
        body: {
          client: {
            id: client.client_id,
            name: client.client_name ?? client.client_id,
            uri: client.client_uri ?? null,
          },
          redirect_uri: request.redirectUri,
          scopes: requestedScopes(request.scopes),
          resource: request.resource,
        },
      };
    },
  }),
  defineEndpoint({
    method: 'post',
    path: '/oauth/consent',
    operationId: 'answerOAuthConsent',
    summary: 'Grant or refuse an OAuth authorization request',
    description:
      "Gateway extension, for the console's consent screen. Grants (`approve: true`) or refuses an MCP host's OAuth authorization request. A grant is a new key of the calling key's account made for the client (`oauth_client_id`), within the calling key's scopes, policy and expiry as POST /keys would make it: the `policy` (budget and window, models, types, max cost per task) and `expires_at` chosen here bound everything the host does with its tokens, and revoking the key (DELETE /keys/{id}) ends every token at once. Answers where to send the browser: the client's redirect URI with the authorization code, its `state` and `iss`; for a refusal, with `error=access_denied` where that URI stays on the person's machine (loopback http), else the gateway's own page `/oauth/ended` (never an open redirect). A request is answered once: answered already (either way), 409 `conflict`, and nothing is granted. Needs the `keys` scope.",
    tags,
    auth: 'any',
    scope: 'keys',
    request: { body: ConsentAnswerBodySchema },
    success: { status: 200, description: "Where to send the person's browser", schema: ConsentAnsweredSchema },
    errors: ['forbidden', 'conflict'],
    handle: async ({ body, principal, ctx }) => {
      const { request, client } = await pendingRequest(ctx, body.request, 'body');
      return { body: await answerOnce(ctx.prisma, request, () => answer(ctx, principal, body, request, client)) };
    },
  }),
];
