// POST /mcp: the Model Context Protocol over Streamable HTTP, both revisions at once: a 2026-07-28 request (its
// envelope in `_meta`) goes to the SDK v2's handler (modern-server.ts); any other is 2025-11-25's, served here by the
// v1 SDK. Stateless either way: each request gets a server of its own whose tools run the REST endpoints with that request's key, address and payment. Sessions,
// server-sent requests and GET streams are not offered, so GET and DELETE answer 405 as the transport's spec says.
// Tool arguments are checked by the endpoints' own schemas, so a refusal reads as the REST API's (validation_error
// naming the field), not as the SDK's.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { isLegacyRequest } from '@modelcontextprotocol/server';
import { toWebRequest } from '@modelcontextprotocol/node';
import express, { type Request, type Response, Router } from 'express';
import { z } from 'zod';
import type { ApiContext, Endpoint } from '../endpoint.ts';
import { toolCallContext } from './mcp-call.ts';
import { mcpCredentials } from './mcp-credentials.ts';
import { createTask, serveTasks, taskCapabilities } from './mcp-tasks.ts';
import { toolOutputSchema } from './output-schemas.ts';
import { ownHostsOnly } from './own-hosts.ts';
import { serveModern } from './modern-server.ts';
import { callTool } from './tool-calls.ts';
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

type Listing = ReturnType<typeof listingOf>;

function mcpServerFor(
  endpoints: Map<string, Endpoint>,
  listing: Listing,
  ctx: ApiContext,
  req: Request,
  res: Response,
): Server {
  const server = new Server(mcpServerInfo, { capabilities: { tools: {}, tasks: taskCapabilities }, instructions });
  const call = toolCallContext(endpoints, ctx, req, res);
  serveTasks(server, call);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listing }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const tool = toolsByName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `No tool ${request.params.name}.`);
    if (request.params.task) {
      if (!tool.runsAsTask) throw new McpError(ErrorCode.MethodNotFound, `${tool.name} does not run as a task.`);
      return createTask(call, tool, request.params.arguments ?? {});
    }
    return callTool(call, tool, request.params.arguments ?? {}, extra);
  });
  return server;
}

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
  const modern = { endpoints: byOperation, listing, toolsByName, info: mcpServerInfo, instructions };
  const router = Router();
  router.use('/mcp', ownHostsOnly(ctx.config.server.publicBaseUrl));
  router.post(
    '/mcp',
    express.json({ limit: jsonBodyLimit }),
    mcpCredentials(ctx, toolsByName, byOperation),
    async (req, res) => {
      if (!(await isLegacyRequest(await toWebRequest(req, req.body), req.body)))
        return serveModern(modern, ctx, req, res);
      const server = mcpServerFor(byOperation, listing, ctx, req, res);
      // A tool's wait is silent between progress reports: a comment at the event streams' heartbeat keeps it open.
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        keepAliveMs: ctx.config.events.heartbeatMs,
      });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    },
  );
  router.all('/mcp', notAllowed);
  return router;
}
