// MCP clients of the official SDK on a gateway's /mcp (Streamable HTTP), with or without a bearer token, closed after
// each test; each has read the tool list, so it checks every result against its tool's output schema.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach } from 'vitest';

/** A client of `baseUrl`'s /mcp; the caller closes it. */
export async function connectMcp(baseUrl: string, token?: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : {},
  });
  const client = new Client({ name: 'gateway-test', version: '1.0.0' });
  await client.connect(transport);
  // Listed first, as hosts do: the SDK's client then checks every tool result's structuredContent against the
  // tool's outputSchema (and throws when it does not match), in every test that uses it.
  await client.listTools();
  return client;
}

export function useMcpClients(baseUrl: () => string): (token?: string) => Promise<Client> {
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });
  return async (token) => {
    const client = await connectMcp(baseUrl(), token);
    clients.push(client);
    return client;
  };
}
