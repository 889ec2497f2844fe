// Where OAuth lives on this gateway: the issuer is the public origin, the protected resource the MCP endpoint, and
// the consent screen the console's; tokens are signed with keys derived from OAUTH_TOKEN_SECRET. Read from the server's
// configuration at each use: the origin is the request's (public-origin.ts: PUBLIC_BASE_URL, or in development the
// loopback address it came to).
import { randomBytes } from 'node:crypto';
import type { TokenSite } from '../../accounts/oauth/access-tokens.ts';
import type { FetchClientMetadata } from '../../accounts/oauth/client-metadata-documents.ts';
import { oauthClientsStore, type OAuthClientsStore } from '../../accounts/oauth/clients.ts';
import { tokenKeys } from '../../accounts/oauth/signing-secret.ts';
import { type OAuthConfig, publicBaseUrl, type ServerConfig } from '../../config/config.ts';
import { currentPublicBase } from '../public-origin.ts';
import type { PrismaClient } from '../../db/prisma.ts';

export interface OAuthSite {
  /** The public origin, as the authorization server's issuer (no trailing slash). */
  readonly issuer: string;
  /** The MCP endpoint's URL: the one resource tokens are issued for. */
  readonly resource: string;
  /** Protected Resource Metadata for /mcp (RFC 9728, path form). */
  readonly resourceMetadataUrl: string;
  readonly consentUrl: string;
  tokenSite(): TokenSite;
  /** Registered clients, and clients known by their metadata documents. */
  clients: OAuthClientsStore;
}

export function oauthSite(
  prisma: PrismaClient,
  server: Pick<ServerConfig, 'publicBaseUrl' | 'port'>,
  oauth: Pick<OAuthConfig, 'tokenSecret'>,
  fetchClientMetadata: FetchClientMetadata,
): OAuthSite {
  const origin = () => new URL(currentPublicBase() ?? publicBaseUrl(server)).origin;
  // Unset only where no runtime started the app (tests in one process): a secret of this process alone.
  const keys = tokenKeys(oauth.tokenSecret ?? randomBytes(32).toString('hex'));
  return {
    get issuer() {
      return origin();
    },
    get resource() {
      return `${origin()}/mcp`;
    },
    get resourceMetadataUrl() {
      return `${origin()}/.well-known/oauth-protected-resource/mcp`;
    },
    get consentUrl() {
      return `${origin()}/console/authorize`;
    },
    tokenSite: () => ({ issuer: origin(), keys }),
    clients: oauthClientsStore(prisma, fetchClientMetadata),
  };
}
