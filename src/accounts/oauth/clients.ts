// OAuth clients of /mcp. Every client is public: it proves itself with PKCE, and the server keeps no secret for it (the
// SDK's client authentication would compare one in clear), so whatever method a registration (RFC 7591) asks for, it
// is answered `token_endpoint_auth_method: "none"`, as §3.2.1 allows. A client id that is an https URL is a Client ID
// Metadata Document: read from there, kept an hour, and on a failed read the last one stands for a day.
import { InvalidClientMetadataError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { PrismaClient } from '../../db/prisma.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import { type FetchClientMetadata, isClientMetadataUrl } from './client-metadata-documents.ts';

type Registration = Omit<OAuthClientInformationFull, 'client_id_issued_at'> & { client_id_issued_at?: number };

const maxMetadataBytes = 16 * 1024;
const maxNameLength = 200;
const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * RFC 8252 §7.1: a native app's own scheme is a reverse domain name it controls (`com.example.app:`), so no other app
 * claims it; a bare word (`myapp:`, `javascript:`) is not one.
 */
const reverseDomainScheme = /^[a-z][a-z0-9-]*(\.[a-z0-9-]+)+:$/;
/** Native hosts' callbacks from before that form, each exactly (PKCE binds the code to the app that asked). */
const knownAppCallbacks = new Set(['cursor://anysphere.cursor-mcp/oauth/callback']);

/**
 * The forms a redirect URI may take, and nothing else: https; http on the loopback interface (a native app's local
 * server, RFC 8252 §7.3); a reverse-domain private-use scheme (§7.1); or a known app's callback. No fragment and no
 * credentials (RFC 6749 §3.1.2).
 */
export function allowedRedirect(uri: string): boolean {
  if (!URL.canParse(uri)) return false;
  const url = new URL(uri);
  if (url.hash || uri.includes('#') || url.username || url.password) return false;
  if (url.protocol === 'https:') return url.hostname !== '';
  if (url.protocol === 'http:') return loopbackHosts.has(url.hostname);
  return reverseDomainScheme.test(url.protocol) || knownAppCallbacks.has(uri);
}

/** A redirect the gateway follows unasked with an error: one that stays on the person's machine (loopback http). */
export const redirectStaysLocal = (uri: string) =>
  URL.canParse(uri) && new URL(uri).protocol === 'http:' && loopbackHosts.has(new URL(uri).hostname);

/** Why a client's metadata cannot be kept (PostgreSQL's JSON takes no NUL), or null when it can. */
export function unusableMetadata(metadata: Partial<Registration>): string | null {
  const text = JSON.stringify(metadata);
  if (text.includes('\\u0000')) return 'a value holds a NUL character';
  if (Buffer.byteLength(text) > maxMetadataBytes) return `the metadata is larger than ${maxMetadataBytes} bytes`;
  if ((metadata.client_name?.length ?? 0) > maxNameLength) return `client_name is longer than ${maxNameLength}`;
  const refused = (metadata.redirect_uris ?? []).find((uri) => !allowedRedirect(String(uri)));
  if (refused)
    return `redirect_uris: ${refused} is not https, loopback http or a reverse-domain app scheme (com.example.app:/…), or has a fragment`;
  return applicationTypeProblem(metadata as { application_type?: unknown; redirect_uris?: unknown[] });
}

/**
 * A client's `application_type` (OpenID Connect registration, which 2026 MCP clients send): a `web` client is
 * answered only at https addresses off this machine; a `native` one at any form above. Without it, any form is taken,
 * as clients before 2026 expect.
 */
export function applicationTypeProblem(metadata: {
  application_type?: unknown;
  redirect_uris?: unknown[];
}): string | null {
  const kind = metadata.application_type;
  if (kind === undefined || kind === 'native') return null;
  if (kind !== 'web') return 'application_type: must be "web" or "native"';
  const uris = Array.isArray(metadata.redirect_uris) ? metadata.redirect_uris : [];
  // A URI that is none (the registration's schema refuses it) is not this check's to answer.
  const notWeb = uris.find((uri) => {
    if (!URL.canParse(String(uri))) return false;
    const url = new URL(String(uri));
    return url.protocol !== 'https:' || loopbackHosts.has(url.hostname) || url.hostname === 'localhost';
  });
  return notWeb ? `redirect_uris: ${String(notWeb)} is not an https address a web client may use` : null;
}
type ClientRow = { id: string; metadata: unknown; createdAt: Date; fetchedAt: Date | null };

const documentMaxAgeMs = 3_600_000;
/** How long the last good document stands in for one that cannot be read. */
const documentStaleMs = 86_400_000;
const failedReadMs = 60_000;
const maxFailedReads = 1_000;

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
  // Documents that could not be read, not asked for again for a minute: each ask is a request anyone can cause.
  const failedReads = new Map<string, number>();
  const readDocument = async (url: string) => {
    const failedAt = failedReads.get(url);
    if (failedAt !== undefined && Date.now() - failedAt < failedReadMs) return null;
    const fetched = await fetchMetadata(url).catch(() => null);
    if (fetched && !unusableMetadata(fetched)) return fetched;
    if (failedReads.size >= maxFailedReads) failedReads.delete(failedReads.keys().next().value!);
    failedReads.set(url, Date.now());
    return null;
  };

  /** A metadata document's client: the kept one while fresh, else read again (if that fails, the kept one for a day). */
  async function documentClient(url: string, kept: ClientRow | null): Promise<OAuthClientInformationFull | undefined> {
    if (kept?.fetchedAt && Date.now() - kept.fetchedAt.getTime() < documentMaxAgeMs) return asClient(kept);
    const fetched = await readDocument(url);
    const keptRecently = kept?.fetchedAt && Date.now() - kept.fetchedAt.getTime() < documentStaleMs;
    if (!fetched) return keptRecently ? asClient(kept) : undefined;
    const metadata = publicMetadata(fetched);
    const row = await prisma.oAuthClient.upsert({
      where: { id: url },
      create: { id: url, metadata, fetchedAt: new Date() },
      update: { metadata, fetchedAt: new Date() },
    });
    return asClient(row);
  }

  return {
    /** Whether the client is registered, or its metadata document kept (nothing is fetched). */
    async isKnown(clientId: string): Promise<boolean> {
      return (await prisma.oAuthClient.count({ where: { id: clientId } })) > 0;
    },
    async getClient(clientId: string): Promise<OAuthClientInformationFull | undefined> {
      const row = await prisma.oAuthClient.findUnique({ where: { id: clientId } });
      if (isClientMetadataUrl(clientId)) return documentClient(clientId, row);
      return row ? asClient(row) : undefined;
    },
    async registerClient(client: Registration): Promise<OAuthClientInformationFull> {
      const problem = unusableMetadata(client);
      if (problem) throw new InvalidClientMetadataError(problem);
      const createdAt = client.client_id_issued_at ? new Date(client.client_id_issued_at * 1000) : new Date();
      const row = await prisma.oAuthClient.create({
        data: { id: client.client_id, metadata: publicMetadata(client), createdAt },
      });
      return asClient(row);
    },
  };
}
