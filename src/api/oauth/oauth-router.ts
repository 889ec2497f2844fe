// OAuth 2.1 for /mcp, from the MCP SDK's handlers: Protected Resource Metadata (RFC 9728) at both well-known forms,
// authorization server metadata (RFC 8414), /oauth/authorize (PKCE S256 only), /oauth/token, dynamic client
// registration (RFC 7591), Client ID Metadata Documents and revocation (RFC 7009). The metadata is ours, not the SDK
// router's: endpoints under /oauth/, public clients only (oauth/clients.ts). Consent is the console's.
import { authorizationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/authorize.js';
import { metadataHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/metadata.js';
import { clientRegistrationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/register.js';
import { revocationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/revoke.js';
import { tokenHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/token.js';
import type { OAuthMetadata, OAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import express, { type RequestHandler, Router } from 'express';
import { applicationTypeProblem, redirectStaysLocal } from '../../accounts/oauth/clients.ts';
import { oauthScopes } from '../../accounts/oauth/oauth-scopes.ts';
import type { ApiContext } from '../endpoint.ts';
import { sendOAuthErrorPage } from './error-page.ts';
import { gatewayOAuthProvider } from './oauth-provider.ts';
import { oauthRateLimit, registrationRateLimit } from './oauth-rate-limits.ts';
import type { OAuthSite } from './oauth-site.ts';

export const oauthPaths = {
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  register: '/oauth/register',
  revoke: '/oauth/revoke',
  /** Where an authorization ends without going back to an application whose redirect would leave the machine. */
  ended: '/oauth/ended',
};

/**
 * /authorize's errors go back to the client's redirect URI only where it stays on the person's machine; any other is
 * shown as a page here, so no registered client turns the gateway into an open redirector. One that goes back names
 * this server as its issuer (`iss`, RFC 9207), as every authorization response does.
 */
function errorPageUnlessLocal(site: OAuthSite): RequestHandler {
  return (_req, res, next) => {
    const redirect = res.redirect.bind(res) as (status: number, url: string) => void;
    res.redirect = ((...args: [number, string] | [string]) => {
      const [status, url] = args.length === 2 ? args : [302, args[0]];
      if (url.startsWith(`${site.consentUrl}?`)) return redirect(status, url);
      if (redirectStaysLocal(url)) return redirect(status, withIssuer(url, site.issuer));
      const answer = new URL(url).searchParams;
      sendOAuthErrorPage(res, 400, answer.get('error') ?? 'server_error', answer.get('error_description') ?? undefined);
    }) as typeof res.redirect;
    next();
  };
}

const withIssuer = (url: string, issuer: string) => {
  const answer = new URL(url);
  if (!answer.searchParams.has('iss')) answer.searchParams.set('iss', issuer);
  return answer.toString();
};

/** A registration's `application_type`, checked here: the SDK's handler keeps only the fields it knows. */
const checkApplicationType: RequestHandler = (req, res, next) => {
  const problem = req.method === 'POST' ? applicationTypeProblem((req.body ?? {}) as object) : null;
  if (!problem) return next();
  res.status(400).json({ error: 'invalid_client_metadata', error_description: problem });
};

/** The two metadata documents for the site's current origin. */
function metadataOf(oauth: OAuthSite): { server: OAuthMetadata; resource: OAuthProtectedResourceMetadata } {
  const at = (path: string) => `${oauth.issuer}${path}`;
  const documentation = at('/docs');
  return {
    server: {
      issuer: oauth.issuer,
      authorization_endpoint: at(oauthPaths.authorize),
      token_endpoint: at(oauthPaths.token),
      registration_endpoint: at(oauthPaths.register),
      revocation_endpoint: at(oauthPaths.revoke),
      scopes_supported: [...oauthScopes],
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
      client_id_metadata_document_supported: true,
      // Every authorization response, an error's too, names the issuer (RFC 9207), which 2026 clients check.
      authorization_response_iss_parameter_supported: true,
      service_documentation: documentation,
    },
    resource: {
      resource: oauth.resource,
      authorization_servers: [oauth.issuer],
      scopes_supported: [...oauthScopes],
      bearer_methods_supported: ['header'],
      resource_name: 'Generation Gateway MCP',
      resource_documentation: documentation,
    },
  };
}

/** The SDK's metadata handler (CORS, GET only) for the document of the request's origin (each made once). */
function currentMetadata(oauth: OAuthSite, pick: (documents: ReturnType<typeof metadataOf>) => object) {
  const handlers = new Map<string, RequestHandler>();
  return ((req, res, next) => {
    let handle = handlers.get(oauth.issuer);
    if (!handle) handlers.set(oauth.issuer, (handle = metadataHandler(pick(metadataOf(oauth)) as OAuthMetadata)));
    handle(req, res, next);
  }) satisfies RequestHandler;
}

export function oauthRouter(ctx: ApiContext): Router {
  const provider = gatewayOAuthProvider(ctx.prisma, ctx.oauth);
  const rateLimit = oauthRateLimit(ctx.oauth, ctx.config.oauth);
  const router = Router();
  const resourceMetadata = currentMetadata(ctx.oauth, (documents) => documents.resource);
  router.use(
    '/.well-known/oauth-authorization-server',
    currentMetadata(ctx.oauth, (documents) => documents.server),
  );
  router.use('/.well-known/oauth-protected-resource/mcp', resourceMetadata);
  router.use('/.well-known/oauth-protected-resource', resourceMetadata);
  router.use(oauthPaths.authorize, errorPageUnlessLocal(ctx.oauth), authorizationHandler({ provider, rateLimit }));
  router.use(oauthPaths.token, tokenHandler({ provider, rateLimit }));
  router.use(
    oauthPaths.register,
    express.json(),
    checkApplicationType,
    clientRegistrationHandler({
      clientsStore: provider.clientsStore,
      clientSecretExpirySeconds: 0,
      rateLimit: registrationRateLimit(ctx.config.oauth),
    }),
  );
  router.use(oauthPaths.revoke, revocationHandler({ provider, rateLimit }));
  router.get(oauthPaths.ended, (req, res) => {
    const error = typeof req.query.error === 'string' ? req.query.error : 'server_error';
    sendOAuthErrorPage(res, 400, error);
  });
  return router;
}
