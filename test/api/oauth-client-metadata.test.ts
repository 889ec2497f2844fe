// Client ID Metadata Documents: the MCP SDK's client, given a metadata URL, uses it as its client id without
// registering; the gateway reads the document (over https, from a server with its own certificate here) and the flow
// ends in tokens as a registered client's does. A document naming another client_id is refused, and by default a
// document at a private address is never fetched. (And, x402 being off in this app, a keyless generate is a 401.)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server as HttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientMetadataFetcher } from '../../src/accounts/oauth/client-metadata-documents.ts';
import { PrivateAddressError } from '../../src/net/private-address.ts';
import { closeServer, listenLocally } from '../../harness/local-server.ts';
import { createDeveloperWithKey } from '../helpers/accounts.ts';
import { useAppWithDatabase } from '../helpers/app.ts';
import { consent, HostOAuth, hostRedirectUrl } from '../helpers/oauth-host.ts';

/** A certificate for localhost, made for this file only. */
function localCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'cimd-cert-'));
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ], { stdio: 'ignore' }); // prettier-ignore
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const certificate = localCertificate();
const documents = new Map<string, unknown>();
let documentServer: HttpsServer;
let documentsUrl = '';

const stack = useAppWithDatabase(() => ({
  // The gateway's reader, trusting this file's certificate (and allowing localhost, where the documents are).
  clientMetadata: clientMetadataFetcher({ dispatcher: new Agent({ connect: { ca: certificate.cert } }) }),
}));
let ownerKey = '';

beforeAll(async () => {
  documentServer = createServer(certificate, (req, res) => {
    const document = documents.get(req.url ?? '');
    res.writeHead(document ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(document ?? {}));
  });
  const { url } = await listenLocally(documentServer, 0);
  documentsUrl = url.replace('http://127.0.0.1', 'https://localhost');
  stack.app.config.server.publicBaseUrl = stack.app.url;
  ownerKey = (await createDeveloperWithKey(stack.database.prisma)).apiKey.key;
});
afterAll(() => closeServer(documentServer));

/** A metadata document at `path` for the host, naming `clientId` (its own URL unless told otherwise). */
function publish(path: string, clientId = `${documentsUrl}${path}`) {
  documents.set(path, {
    client_id: clientId,
    client_name: 'Document host',
    redirect_uris: [hostRedirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });
  return `${documentsUrl}${path}`;
}

async function startAuthorization(host: HostOAuth) {
  const transport = new StreamableHTTPClientTransport(new URL(`${stack.app.url}/mcp`), { authProvider: host });
  const client = new Client({ name: 'cimd-host', version: '1.0.0' });
  await client.connect(transport);
  await expect(client.callTool({ name: 'get_current_key', arguments: {} })).rejects.toThrow(UnauthorizedError);
  await client.close();
  return transport;
}

describe('Client ID Metadata Documents', () => {
  it('takes a metadata URL as the client id: the SDK does not register, and the flow ends in working tokens', async () => {
    const metadataUrl = publish('/hosts/document-host.json');
    const host = new HostOAuth(metadataUrl);
    const transport = await startAuthorization(host);
    expect(host.information).toMatchObject({ client_id: metadataUrl });
    expect(host.authorizationUrl!.searchParams.get('client_id')).toBe(metadataUrl);
    const { shown, redirect } = await consent(stack, ownerKey, host.authorizationUrl!, { approve: true });
    expect(shown.client).toMatchObject({ id: metadataUrl, name: 'Document host' });
    await transport.finishAuth(redirect.searchParams.get('code')!);

    const client = new Client({ name: 'cimd-host', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.app.url}/mcp`), { authProvider: host }));
    const current = await client.callTool({ name: 'get_current_key', arguments: {} });
    expect(current.structuredContent).toMatchObject({ name: 'Document host', oauth_client_id: metadataUrl });
    await client.close();
  });

  it('refuses a document that names another client id', async () => {
    const metadataUrl = publish('/hosts/impostor.json', 'https://elsewhere.example/client.json');
    const host = new HostOAuth(metadataUrl);
    await startAuthorization(host);
    const refused = await fetch(host.authorizationUrl!, { redirect: 'manual' });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('challenges a keyless generate where x402 is off (here): it needs an account', async () => {
    expect(stack.app.config.x402.enabled).toBe(false);
    const keyless = await fetch(`${stack.app.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'generate', arguments: {} },
      }),
    });
    expect(keyless.status).toBe(401);
    expect(keyless.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata=/);
  });

  it('never fetches a document at a private address by default', async () => {
    const fetchMetadata = clientMetadataFetcher();
    await expect(fetchMetadata('https://127.0.0.1:9/client.json')).rejects.toThrow(PrivateAddressError);
    await expect(fetchMetadata(`${documentsUrl}/hosts/document-host.json`)).rejects.toMatchObject({
      cause: expect.any(PrivateAddressError),
    });
  });
});
