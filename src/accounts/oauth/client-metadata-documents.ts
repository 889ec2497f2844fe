// Client ID Metadata Documents (MCP 2025-11-25): a client whose id is an https URL publishes its metadata there, so a
// host needs no registration. Fetched by the server, so guarded as every request to a caller's URL is: https only, no
// redirects, 5 s, 64 KB, and never into the private network (src/net/private-address.ts): anyone may make the
// gateway read one, by naming it at /oauth/authorize.
import { OAuthClientMetadataSchema, type OAuthClientMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { type Dispatcher, fetch } from 'undici';
import { outboundDispatcher } from '../../net/private-address.ts';

const timeoutMs = 5_000;
const maxBytes = 64 * 1024;

/** A client id that names its metadata document: an https URL with a path, no fragment, no credentials. */
export function isClientMetadataUrl(clientId: string): boolean {
  if (!URL.canParse(clientId)) return false;
  const url = new URL(clientId);
  return url.protocol === 'https:' && url.pathname !== '/' && !url.hash && !url.username && !url.password;
}

export class ClientMetadataError extends Error {
  override name = 'ClientMetadataError';
}

export type FetchClientMetadata = (url: string) => Promise<OAuthClientMetadata & { client_id: string }>;

export interface ClientMetadataFetchOptions {
  /** The connection to use instead of the guarded one (tests: one that trusts their own certificate). */
  dispatcher?: Dispatcher;
}

async function readCapped(body: AsyncIterable<Uint8Array>): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxBytes) throw new ClientMetadataError(`the document is larger than ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function clientMetadataFetcher(options: ClientMetadataFetchOptions = {}): FetchClientMetadata {
  return async (url) => {
    const response = await fetch(url, {
      dispatcher: options.dispatcher ?? outboundDispatcher(new URL(url), false),
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
      headers: { accept: 'application/json' },
    });
    if (!response.ok || !response.body) throw new ClientMetadataError(`${url} answered ${response.status}`);
    let document: unknown;
    try {
      document = JSON.parse(await readCapped(response.body));
    } catch (error) {
      throw error instanceof ClientMetadataError ? error : new ClientMetadataError(`${url} is not JSON`);
    }
    const parsed = OAuthClientMetadataSchema.safeParse(document);
    if (!parsed.success) throw new ClientMetadataError(`${url} is not client metadata: ${parsed.error.message}`);
    if ((document as { client_id?: unknown }).client_id !== url)
      throw new ClientMetadataError(`${url} names another client_id`);
    return { ...parsed.data, client_id: url };
  };
}
