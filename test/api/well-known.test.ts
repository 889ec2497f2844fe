// The discovery documents at /.well-known/ (issue 29): an MCP Server Card and an A2A Agent Card, both naming this
// server's own address, its REST/OpenAPI and MCP endpoints, the event streams and how to authenticate; every URL they
// give answers.
import { describe, expect, it } from 'vitest';
import { useAppWithDatabase } from '../helpers/app.ts';

const withX402 = useAppWithDatabase({
  config: { x402: { enabled: true }, chains: { base: { rpcUrl: 'http://127.0.0.1:9/base' } } },
});
const published = useAppWithDatabase({
  config: { x402: { enabled: false }, server: { publicBaseUrl: 'https://gen.example.com/' } },
});

const read = async (base: string, path: string) => {
  const response = await fetch(`${base}${path}`);
  return { response, body: (await response.json()) as any };
};

describe('GET /.well-known/mcp/server-card.json', () => {
  it('names the server and its Streamable HTTP endpoint at the address asked; /.well-known/mcp.json is the same', async () => {
    const { url } = withX402.app;
    const { response, body } = await read(url, '/.well-known/mcp/server-card.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(body).toMatchObject({
      $schema: expect.stringContaining('server-card'),
      name: expect.stringMatching(/^[\w.-]+\/generation-gateway$/),
      version: '1.1.0',
      title: 'Generation Gateway',
      remotes: [{ type: 'streamable-http', url: `${url}/mcp` }],
    });
    expect(body.description).toMatch(/text-to-image/);
    expect(Object.keys(body._meta['io.modelcontextprotocol/security-schemes'])).toEqual(['bearerAuth', 'x402']);
    expect((await read(url, '/.well-known/mcp.json')).body).toEqual(body);
    // The endpoint it names speaks MCP.
    const initialize = await fetch(body.remotes[0].url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
      }),
    });
    expect(initialize.status).toBe(200);
  });

  it('follows PUBLIC_BASE_URL, and leaves x402 out where it is off', async () => {
    const { body } = await read(published.app.url, '/.well-known/mcp/server-card.json');
    expect(body.name).toBe('com.example.gen/generation-gateway');
    expect(body.remotes[0].url).toBe('https://gen.example.com/mcp');
    expect(Object.keys(body._meta['io.modelcontextprotocol/security-schemes'])).toEqual(['bearerAuth']);
  });
});

describe('GET /.well-known/agent-card.json', () => {
  it('describes the service: a skill per generation type, its OpenAPI, MCP and event stream endpoints, bearer auth', async () => {
    const { url } = withX402.app;
    const { response, body } = await read(url, '/.well-known/agent-card.json');
    expect(response.status).toBe(200);
    expect(body).toMatchObject({
      name: 'Generation Gateway',
      version: '1.1.0',
      documentationUrl: `${url}/llms.txt`,
      capabilities: { streaming: true },
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
      security: [{ bearerAuth: [] }],
    });
    expect(body.skills.map((skill: { id: string }) => skill.id)).toEqual(
      expect.arrayContaining(['text-to-image', 'text-to-text', 'image-to-video']),
    );
    const extensions = Object.fromEntries(
      body.capabilities.extensions.map((extension: { uri: string; params: object }) => [
        extension.uri,
        extension.params,
      ]),
    );
    expect(extensions['https://spec.openapis.org/oas/v3.1.0']).toEqual({ url: `${url}/api/v1/openapi.json` });
    expect(extensions['https://modelcontextprotocol.io']).toEqual({ url: `${url}/mcp` });
    expect(extensions['https://html.spec.whatwg.org/multipage/server-sent-events.html']).toEqual({
      task: `${url}/api/v1/generations/{id}/events`,
      account: `${url}/api/v1/events`,
    });
    for (const link of [`${url}/api/v1/openapi.json`, body.documentationUrl])
      expect((await fetch(link)).status).toBe(200);
    expect((await read(url, '/.well-known/agent.json')).body).toEqual(body);
  });
});
