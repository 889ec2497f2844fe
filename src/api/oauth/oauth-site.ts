// Where OAuth lives on this gateway: the issuer is the public origin, the protected resource the MCP endpoint, and
// the consent screen the console's; tokens are signed with the secret kept in PostgreSQL. Read at each use: the
// origin is the request's (public-origin.ts: PUBLIC_BASE_URL, or in development the loopback address it came to).
import type { TokenSite } from '../../accounts/oauth/access-tokens.ts';
import type { FetchClientMetadata } from '../../accounts/oauth/client-metadata-documents.ts';
import { oauthClientsStore, type OAuthClientsStore } from '../../accounts/oauth/clients.ts';
import { oauthSecretSource } from '../../accounts/oauth/signing-secret.ts';
import { publicBaseUrl, type ServerConfig } from '../../config/config.ts';
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
  tokenSite(): Promise<TokenSite>;
  /** Registered clients, and clients known by their metadata documents. */
  clients: OAuthClientsStore;
}

export function oauthSite(
  prisma: PrismaClient,
  server: Pick<ServerConfig, 'publicBaseUrl' | 'port'>,
  fetchClientMetadata: FetchClientMetadata,
): OAuthSite {
  const origin = () => new URL(currentPublicBase() ?? publicBaseUrl(server)).origin;
  const secret = oauthSecretSource(prisma);
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
    tokenSite: async () => ({ issuer: origin(), secret: await secret() }),
    clients: oauthClientsStore(prisma, fetchClientMetadata),
  };
}
