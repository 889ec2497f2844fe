// OAuth clients registered dynamically (RFC 7591) by MCP hosts. Every client is public: it proves itself with PKCE,
// and the server keeps no secret for it (the SDK's client authentication would compare one in clear), so whatever
// method a registration asks for, it is answered `token_endpoint_auth_method: "none"`, as RFC 7591 §3.2.1 allows.
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { PrismaClient } from '../../db/prisma.ts';
import type { Prisma } from '../../generated/prisma/client.ts';

type Registration = Omit<OAuthClientInformationFull, 'client_id_issued_at'> & { client_id_issued_at?: number };

export function oauthClientsStore(prisma: PrismaClient) {
  return {
    async getClient(clientId: string): Promise<OAuthClientInformationFull | undefined> {
      const row = await prisma.oAuthClient.findUnique({ where: { id: clientId } });
      if (!row) return undefined;
      return {
        ...(row.metadata as object),
        client_id: row.id,
        client_id_issued_at: Math.floor(row.createdAt.getTime() / 1000),
      } as OAuthClientInformationFull;
    },
    async registerClient(client: Registration): Promise<OAuthClientInformationFull> {
      const { client_id, client_id_issued_at, client_secret, client_secret_expires_at, ...metadata } = client;
      void client_secret;
      void client_secret_expires_at;
      const stored = { ...metadata, token_endpoint_auth_method: 'none' };
      const createdAt = client_id_issued_at ? new Date(client_id_issued_at * 1000) : new Date();
      await prisma.oAuthClient.create({
        data: { id: client_id, metadata: stored as Prisma.InputJsonObject, createdAt },
      });
      return { ...stored, client_id, client_id_issued_at: Math.floor(createdAt.getTime() / 1000) };
    },
  };
}
