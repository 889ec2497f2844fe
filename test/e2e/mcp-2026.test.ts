// The 2026-07-28 revision on the same /mcp, driven by the official SDK v2 client: pinned to it (no `initialize`, the
// server found by `server/discover`) and in `auto` mode, it lists the same tools as a 2025 client, runs them with its
// key, and gets the listing's cache hints; the SDK's header and envelope checks refuse a request that breaks them.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { connectMcp } from '../helpers/mcp-client.ts';

const stack = useGateway();
const owner = useFundedDeveloper(stack);
const clients: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function modernClient(mode: 'auto' | { pin: '2026-07-28' }, token?: string) {
  const transport = new StreamableHTTPClientTransport(new URL(`${stack.app.url}/mcp`), {
    requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : {},
  });
  const client = new Client({ name: 'gateway-test-2026', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const names = (tools: { name: string }[]) => tools.map((tool) => tool.name).sort();

describe('MCP 2026-07-28', () => {
  it('a client pinned to it lists the same tools as a 2025 client, with the cache hints of a public listing', async () => {
    const modern = await modernClient({ pin: '2026-07-28' });
    expect(modern.getProtocolEra()).toBe('modern');
    const listed = await modern.listTools();
    const legacy = await connectMcp(stack.app.url);
    clients.push(legacy);
    expect(names(listed.tools)).toEqual(names((await legacy.listTools()).tools));
    expect(listed).toMatchObject({ ttlMs: 300_000, cacheScope: 'public' });
  });

  it('runs a tool with its key, answered as the REST API would', async () => {
    const modern = await modernClient({ pin: '2026-07-28' }, owner.key);
    const result = await modern.callTool({ name: 'get_balance', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ developer_id: owner.accountId, balance: '5.00' });
  });

  it('in auto mode finds the 2026 revision by server/discover', async () => {
    const modern = await modernClient('auto');
    expect(modern.getProtocolEra()).toBe('modern');
    expect(names((await modern.listTools()).tools)).toContain('generate');
  });

  it('refuses a 2026 request whose Mcp-Name header names another tool than its body (400)', async () => {
    const response = await fetch(`${stack.app.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'quote',
        authorization: `Bearer ${owner.key}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'get_balance',
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
          },
        },
      }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32020);
  });
});
