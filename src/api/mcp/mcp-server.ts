// The MCP server of POST /mcp, both revisions at once, from the official SDK v2's handler: a 2026-07-28 request
// (stateless, `server/discover`, its envelope and the Mcp-Method / Mcp-Name headers checked by the SDK) and a
// 2025-11-25 one (`initialize`, served statelessly) each get a server of their own from one factory, with the same
// tools run by the same code (tool-calls.ts) with that POST's key, address and payment. Only tasks differ by era:
// 2025's `tasks` capability (mcp-tasks.ts) and 2026's extension (modern-tasks.ts).
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type CallToolResult,
  createMcpHandler,
  type McpRequestContext,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import type { Request, Response } from 'express';
import type { ApiContext, Endpoint } from '../endpoint.ts';
import { type ToolCallContext, toolCallContext } from './mcp-call.ts';
import { bearerOf } from './mcp-credentials.ts';
import { createTask, serveTasks, taskCapabilities } from './mcp-tasks.ts';
import { createModernTask, declaresTasks, serveModernTasks } from './modern-tasks.ts';
import { tasksExtension } from './tasks-extension.ts';
import { extraOf } from './task-follow.ts';
import { callTool } from './tool-calls.ts';
import type { ToolDefinition } from './tools.ts';

/** The same tools for everyone, changed only by a restart with another catalog or configuration: five minutes. */
const listingTtlMs = 5 * 60_000;

export interface McpServing {
  endpoints: Map<string, Endpoint>;
  listing: unknown[];
  toolsByName: Map<string, ToolDefinition>;
  info: { name: string; version: string };
  instructions: string;
}

type Era = McpRequestContext['era'];

/** What a server says it does: tools, and tasks in its revision's form (2026's extension as the empty object asked). */
const capabilitiesOf = (era: Era) =>
  era === 'modern'
    ? ({ tools: {}, extensions: { [tasksExtension]: {} } } as never)
    : { tools: {}, tasks: taskCapabilities };

/** Whether this tools/call becomes a task: as 2025's client asks (`task`), or as 2026's server decides. */
function startsTask(
  era: Era,
  tool: ToolDefinition,
  params: { task?: unknown },
  context: ServerContext,
  call: ToolCallContext,
) {
  if (era === 'legacy') {
    if (params.task && !tool.runsAsTask)
      throw new ProtocolError(ProtocolErrorCode.MethodNotFound, `${tool.name} does not run as a task.`);
    return Boolean(params.task);
  }
  // A task to a client that takes them, for a tool that may run long, called with a key (which reads it later).
  return tool.runsAsTask && declaresTasks(context) && Boolean(bearerOf(call.headers));
}

function serverFor(serving: McpServing, era: Era, call: ToolCallContext): Server {
  const server = new Server(serving.info, {
    capabilities: capabilitiesOf(era),
    instructions: serving.instructions,
    cacheHints: { 'tools/list': { ttlMs: listingTtlMs, cacheScope: 'public' } },
  });
  server.setRequestHandler('tools/list', () => ({ tools: serving.listing as never }));
  if (era === 'modern') serveModernTasks(server, call);
  else serveTasks(server, call);
  server.setRequestHandler('tools/call', async (request, context) => {
    const tool = serving.toolsByName.get(request.params.name);
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No tool ${request.params.name}.`);
    const args = request.params.arguments ?? {};
    if (startsTask(era, tool, request.params, context, call))
      return (
        era === 'modern' ? await createModernTask(call, tool, args) : await createTask(call, tool, args)
      ) as never;
    return (await callTool(call, tool, args, extraOf(context))) as CallToolResult;
  });
  return server;
}

/**
 * The Express handler of POST /mcp: one SDK handler for the process, whose factory finds the POST it serves (its key,
 * address, payment and end) in the async context the request runs in.
 */
export function mcpHandler(serving: McpServing, ctx: ApiContext) {
  const current = new AsyncLocalStorage<ToolCallContext>();
  const handler = createMcpHandler(({ era }) => serverFor(serving, era, current.getStore()!), {
    legacy: 'stateless',
    // A tool's wait is silent between progress reports: a comment at the event streams' heartbeat keeps it open.
    keepAliveMs: ctx.config.events.heartbeatMs,
    onerror: (error) => current.getStore()?.log.warn({ err: error }, 'MCP request refused'),
  });
  const serve = toNodeHandler(handler);
  return (req: Request, res: Response) =>
    current.run(toolCallContext(serving.endpoints, ctx, req, res), () => serve(req, res, req.body));
}
