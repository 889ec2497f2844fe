// The request the form makes, as a command to run elsewhere: curl against this gateway, or an MCP tools/call. The key
// is a placeholder: a copied secret ends up in shell histories and chat logs.
import type { GenerationRequest } from './inputs';

const quoted = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/** `idempotencyKey`: running the copied command twice answers the same task, charged once. */
export function curlCommand(origin: string, body: GenerationRequest, idempotencyKey: string): string {
  return [
    `curl -sS ${origin}/api/v1/generations`,
    `  -H "Authorization: Bearer $GATEWAY_API_KEY"`,
    `  -H 'Content-Type: application/json'`,
    `  -H 'Idempotency-Key: ${idempotencyKey}'`,
    `  -d ${quoted(JSON.stringify(body))}`,
  ].join(' \\\n');
}

/** The JSON-RPC request an MCP client sends to `${origin}/mcp` (with the key as its bearer token). */
export function mcpCall(body: GenerationRequest): string {
  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'generate', arguments: body } };
  return JSON.stringify(call, null, 2);
}
