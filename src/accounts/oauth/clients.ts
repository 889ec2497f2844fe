// OAuth clients of /mcp. Every client is public: it proves itself with PKCE, and the server keeps no secret for it (the
// SDK's client authentication would compare one in clear), so whatever method a registration (RFC 7591) asks for, it
// is answered `token_endpoint_auth_method: "none"`, as §3.2.1 allows. A client id that is an https URL is a Client ID
// Metadata Document: read from there, kept an hour, and on a failed read the last one stands.
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { PrismaClient } from '../../db/prisma.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import { type FetchClientMetadata, isClientMetadataUrl } from './client-metadata-documents.ts';

type Registration = Omit<OAuthClientInformationFull, 'client_id_issued_at'> & { client_id_issued_at?: number };
type ClientRow = { id: string; metadata: unknown; createdAt: Date; fetchedAt: Date | null };

const documentMaxAgeMs = 3_600_000;

const asClient = (row: ClientRow): OAuthClientInformationFull =>
  ({
    ...(row.metadata as object),
    client_id: row.id,
    client_id_issued_at: Math.floor(row.createdAt.getTime() / 1000),
  }) as OAuthClientInformationFull;

/** The metadata as kept: a public client's, without credentials. */
function publicMetadata(client: Partial<Registration>): Prisma.InputJsonObject {
  const { client_id, client_id_issued_at, client_secret, client_secret_expires_at, ...metadata } = client;
  void [client_id, client_id_issued_at, client_secret, client_secret_expires_at];
  return { ...metadata, token_endpoint_auth_method: 'none' } as Prisma.InputJsonObject;
}

export type OAuthClientsStore = ReturnType<typeof oauthClientsStore>;

export function oauthClientsStore(prisma: PrismaClient, fetchMetadata: FetchClientMetadata) {
  /** A metadata document's client: the kept one while fresh, else read again (the kept one if that fails). */
  async function documentClient(url: string, kept: ClientRow | null): Promise<OAuthClientInformationFull | undefined> {
    if (kept?.fetchedAt && Date.now() - kept.fetchedAt.getTime() < documentMaxAgeMs) return asClient(kept);
    const fetched = await fetchMetadata(url).catch(() => null);
    if (!fetched) return kept ? asClient(kept) : undefined;
    const metadata = publicMetadata(fetched);
    const row = await prisma.oAuthClient.upsert({
      where: { id: url },
      create: { id: url, metadata, fetchedAt: new Date() },
      update: { metadata, fetchedAt: new Date() },
    });
    return asClient(row);
  }

  return {
    async getClient(clientId: string): Promise<OAuthClientInformationFull | undefined> {
      const row = await prisma.oAuthClient.findUnique({ where: { id: clientId } });
      if (isClientMetadataUrl(clientId)) return documentClient(clientId, row);
      return row ? asClient(row) : undefined;
    },
    async registerClient(client: Registration): Promise<OAuthClientInformationFull> {
      const createdAt = client.client_id_issued_at ? new Date(client.client_id_issued_at * 1000) : new Date();
      const row = await prisma.oAuthClient.create({
        data: { id: client.client_id, metadata: publicMetadata(client), createdAt },
      });
      return asClient(row);
    },
  };
}
