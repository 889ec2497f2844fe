// The 2026-07-28 revision of MCP on the same POST /mcp (the official SDK v2's per-request handler): stateless, no
// `initialize`, `server/discover` answered by the SDK, the request envelope and the Mcp-Method / Mcp-Name headers
// checked by it. Its tools are the same as the 2025 era's, run by the same code (tool-calls.ts) with this request's
// key, address and payment; the listing is the same for every caller, so clients may cache it.
import {
  type CallToolResult,
  createMcpHandler,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import type { Request, Response } from 'express';
import type { ApiContext, Endpoint } from '../endpoint.ts';
import { toolCallContext } from './mcp-call.ts';
import type { Extra } from './task-follow.ts';
import { bearerOf } from './mcp-credentials.ts';
import { createModernTask, declaresTasks, serveModernTasks, tasksExtension } from './modern-tasks.ts';
import { callTool } from './tool-calls.ts';
import type { ToolDefinition } from './tools.ts';

/** The same tools for everyone, changed only by a restart with another catalog or configuration: five minutes. */
const listingTtlMs = 5 * 60_000;

export interface ModernServing {
  endpoints: Map<string, Endpoint>;
  listing: unknown[];
  toolsByName: Map<string, ToolDefinition>;
  info: { name: string; version: string };
  instructions: string;
}

/** What a v2 handler's context gives a tool call, in the shape both eras' tool code reads. */
const extraOf = (context: ServerContext): Extra => ({
  _meta: context.mcpReq._meta as Extra['_meta'],
  signal: context.mcpReq.signal,
  sendNotification: (notification) => context.mcpReq.notify(notification),
});

function modernServer(serving: ModernServing, ctx: ApiContext, req: Request, res: Response): Server {
  const server = new Server(serving.info, {
    // The tasks extension is advertised as an empty object, as its requesters look for.
    capabilities: { tools: {}, extensions: { [tasksExtension]: {} } } as never,
    instructions: serving.instructions,
    cacheHints: { 'tools/list': { ttlMs: listingTtlMs, cacheScope: 'public' } },
  });
  const call = toolCallContext(serving.endpoints, ctx, req, res);
  server.setRequestHandler('tools/list', () => ({ tools: serving.listing as never }));
  serveModernTasks(server, call);
  server.setRequestHandler('tools/call', async (request, context) => {
    const tool = serving.toolsByName.get(request.params.name);
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No tool ${request.params.name}.`);
    // The server decides: a task to a client that takes them, for a tool that may run long, called with a key.
    if (tool.runsAsTask && declaresTasks(context) && bearerOf(call.headers))
      return (await createModernTask(call, tool, request.params.arguments ?? {})) as never;
    const result = await callTool(call, tool, request.params.arguments ?? {}, extraOf(context));
    return result as CallToolResult;
  });
  return server;
}

/** Serves one 2026-07-28 request (the router sends 2025-era ones to the v1 server). */
export function serveModern(serving: ModernServing, ctx: ApiContext, req: Request, res: Response): Promise<void> {
  const handler = createMcpHandler(() => modernServer(serving, ctx, req, res), {
    legacy: 'reject',
    // A tool's wait is silent between progress reports: a comment at the event streams' heartbeat keeps it open.
    keepAliveMs: ctx.config.events.heartbeatMs,
    onerror: (error) => req.log.warn({ err: error }, 'MCP request refused'),
  });
  res.on('close', () => void handler.close());
  return toNodeHandler(handler)(req, res, req.body);
}
