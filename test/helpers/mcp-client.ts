// MCP clients of the official SDK on a gateway's /mcp (Streamable HTTP), with or without a bearer token, closed after
// each test.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach } from 'vitest';

export function useMcpClients(baseUrl: () => string): (token?: string) => Promise<Client> {
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });
  return async (token) => {
    const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl()}/mcp`), {
      requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : {},
    });
    const client = new Client({ name: 'gateway-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  };
}
