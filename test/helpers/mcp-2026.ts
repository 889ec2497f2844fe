// A 2026-07-28 MCP requester on the wire, as the SDK v2's client frames a request (its `_meta` envelope, and the
// MCP-Protocol-Version, Mcp-Method and Mcp-Name headers): for what the SDK's client cannot send itself (task traffic,
// which @modelcontextprotocol/ext-tasks hands to its host to send) and for asserting on the exact answer.
export const tasksCapabilities = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
export const clientInfo = { name: 'tasks-requester', version: '1.0.0' };

export interface RpcAnswer {
  result?: Record<string, any>;
  error?: { code: number; message: string };
}

let nextId = 1;

/** A requester of `baseUrl`'s /mcp with `key` as its Bearer credential, or with none. */
export function mcp2026(baseUrl: string, key?: string) {
  /** POSTs one request whose `params` carry their envelope already; the JSON-RPC answer. */
  async function post(method: string, params: Record<string, unknown>): Promise<RpcAnswer> {
    const name = (params.name ?? params.taskId) as string | undefined;
    const response = await fetch(`${baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        ...(name ? { 'mcp-name': name } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
    });
    if (!response.headers.get('content-type')?.includes('application/json'))
      throw new Error(`${method} answered ${response.status} ${response.headers.get('content-type')}`);
    return (await response.json()) as RpcAnswer;
  }

  /** One request declaring `capabilities` (the tasks extension unless told otherwise). */
  function rpc(method: string, params: Record<string, unknown>, capabilities: object = tasksCapabilities) {
    const _meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': capabilities,
      'io.modelcontextprotocol/clientInfo': clientInfo,
    };
    return post(method, { ...params, _meta });
  }

  return { post, rpc };
}
