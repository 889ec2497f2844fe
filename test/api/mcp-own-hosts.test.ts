// /mcp answers only at the server's own addresses (issue 35, point 9: the MCP conformance suite's DNS-rebinding
// scenario): a foreign Host or Origin is refused 403 before any MCP is spoken; PUBLIC_BASE_URL's host, and the
// loopback names at the port listened on, are taken; a client that sends no Origin (not a browser) is fine.
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { useAppWithDatabase } from '../helpers/app.ts';
import { useMcpClients } from '../helpers/mcp-client.ts';

const unpublished = useAppWithDatabase();
const published = useAppWithDatabase({ config: { server: { publicBaseUrl: 'https://gen.example.com' } } });

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
});

/** An MCP initialize with the given headers (Host among them, which fetch would not send as given). */
function postInitialize(url: string, headers: Record<string, string>) {
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const post = request(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    });
    post.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode!, body: text.startsWith('{') ? JSON.parse(text) : text }),
      );
    });
    post.on('error', reject).end(initialize);
  });
}

const portOf = (url: string) => new URL(url).port;

/** The official SDK's client, sending `headers` with each request (a browser's Origin, say). */
async function connectWith(url: string, headers: Record<string, string>) {
  const client = new Client({ name: 'gateway-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
  return client;
}

const connect = useMcpClients(() => unpublished.app.url);

describe('/mcp without PUBLIC_BASE_URL', () => {
  it("the SDK's client connects at the loopback address listened on, and lists the tools", async () => {
    const client = await connect();
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it.each(['localhost', '127.0.0.1', '[::1]'])('Host %s at the port listened on is taken', async (name) => {
    const { url } = unpublished.app;
    expect((await postInitialize(url, { host: `${name}:${portOf(url)}` })).status).toBe(200);
  });

  it.each([
    ['a foreign name', 'evil.example.com'],
    ['a foreign name at the port', `evil.example.com:PORT`],
    ['localhost at another port', 'localhost:1'],
  ])('Host of %s is refused 403', async (_name, host) => {
    const { url } = unpublished.app;
    const answer = await postInitialize(url, { host: host.replace('PORT', portOf(url)) });
    expect(answer).toEqual({
      status: 403,
      body: {
        error: 'forbidden',
        message: `Host ${host.replace('PORT', portOf(url))} is not an address of this server; its MCP endpoint answers only at its own (PUBLIC_BASE_URL).`,
      },
    });
  });

  it("a foreign Origin is refused 403 (the SDK's client fails to connect); the server's own is taken", async () => {
    const { url } = unpublished.app;
    const refused = await postInitialize(url, { origin: 'http://evil.example.com' });
    expect(refused).toMatchObject({
      status: 403,
      body: { error: 'forbidden', message: expect.stringMatching(/^Origin http:\/\/evil\.example\.com is not/) },
    });
    await expect(connectWith(url, { origin: 'http://evil.example.com' })).rejects.toThrow(
      /"error":"forbidden","message":"Origin http:\/\/evil\.example\.com is not/,
    );
    const own = await connectWith(url, { origin: url });
    expect((await own.listTools()).tools.length).toBeGreaterThan(0);
    await own.close();
  });
});

describe('/mcp with PUBLIC_BASE_URL', () => {
  it('takes its host and origin, and the loopback address listened on; refuses a foreign Host or Origin', async () => {
    const { url } = published.app;
    expect((await postInitialize(url, { host: 'gen.example.com' })).status).toBe(200);
    expect((await postInitialize(url, { host: 'gen.example.com', origin: 'https://gen.example.com' })).status).toBe(
      200,
    );
    expect((await postInitialize(url, { host: `127.0.0.1:${portOf(url)}` })).status).toBe(200);
    expect((await postInitialize(url, { host: 'evil.example.com' })).status).toBe(403);
    expect((await postInitialize(url, { host: 'gen.example.com', origin: 'https://evil.example.com' })).status).toBe(
      403,
    );
    expect((await postInitialize(url, { host: 'gen.example.com', origin: 'null' })).status).toBe(403);
  });
});
