// POST /mcp: the Model Context Protocol over Streamable HTTP, both revisions at once (mcp-server.ts). Stateless: each
// request gets a server of its own whose tools run the REST endpoints with that request's key, address and payment.
// Sessions, server-sent requests and GET streams are not offered, so GET and DELETE answer 405 as the transport's spec
// says. Tool arguments are checked by the endpoints' own schemas, so a refusal reads as the REST API's
// (validation_error naming the field), not as the SDK's.
import express, { type Request, type Response, Router } from 'express';
import { z } from 'zod';
import type { ApiContext, Endpoint } from '../endpoint.ts';
import { mcpCredentials } from './mcp-credentials.ts';
import { mcpHandler } from './mcp-server.ts';
import { toolOutputSchema } from './output-schemas.ts';
import { ownHostsOnly } from './own-hosts.ts';
import { isPaidTool, paidToolMeta, tools } from './tools.ts';

type JsonObjectSchema = { type: 'object'; [key: string]: unknown };

/** The tools as listed: arguments and answers as JSON Schema, made once from the REST API's own zod schemas. */
const listingOf = (endpoints: Map<string, Endpoint>, ctx: ApiContext) =>
  tools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as JsonObjectSchema,
    outputSchema: toolOutputSchema(tool, endpoints),
    annotations: tool.annotations,
    ...(tool.runsAsTask ? { execution: { taskSupport: 'optional' as const } } : {}),
    ...(isPaidTool(tool, endpoints, ctx.config) && { _meta: paidToolMeta }),
  }));
const toolsByName = new Map(tools.map((tool) => [tool.name, tool]));

export const mcpServerInfo = { name: 'generation-gateway', version: '1.1.0' };

const instructions =
  'Generate images, video, audio, 3D and text. Without a key: register_agent, then send its api_key as a Bearer token (or pay generate with x402). list_models and quote first; generate answers a task id, get_generation follows it. top_up pays your balance with x402.';

const notAllowed = (_req: Request, res: Response) => {
  res
    .status(405)
    .set('Allow', 'POST')
    .json({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Method not allowed: this server is stateless; POST /mcp.' },
      id: null,
    });
};

export function mcpRouter(endpoints: Endpoint[], ctx: ApiContext, jsonBodyLimit: string): Router {
  const byOperation = new Map(endpoints.map((endpoint) => [endpoint.operationId, endpoint]));
  const listing = listingOf(byOperation, ctx);
  const serve = mcpHandler({ endpoints: byOperation, listing, toolsByName, info: mcpServerInfo, instructions }, ctx);
  const router = Router();
  router.use('/mcp', ownHostsOnly(ctx.config.server.publicBaseUrl));
  router.post('/mcp', express.json({ limit: jsonBodyLimit }), mcpCredentials(ctx, toolsByName, byOperation), serve);
  router.all('/mcp', notAllowed);
  return router;
}
