// MCP tasks on the 2026-07-28 revision: the `io.modelcontextprotocol/tasks` extension (SEP-2663). To a client that
// declares it, `generate` answers `resultType: "task"` with the generation's id as the task's; `tasks/get` says where
// it is and, once it ended, carries its tool result (a failed generation is a completed call whose result `isError`,
// as a tool's own failure is); `tasks/cancel` cancels and refunds it. A client that did not declare it gets -32021. As in the 2025 form (mcp-tasks.ts), the task is
// its generation, in PostgreSQL and its workflow, so any api process answers for it, before and after a restart.
import {
  MissingRequiredClientCapabilityError,
  ProtocolError,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { cancelledError } from '../../../workflows/contracts/generation.types.ts';
import { hasEnded } from '../../domain/values.ts';
import { run, type ToolCallContext } from './mcp-call.ts';
import {
  asRequestError,
  type Generation,
  pollIntervalMs,
  readGeneration,
  requireKey,
  statusMessage,
  TaskRequestError,
  taskParams,
  ttlOf,
} from './mcp-tasks.ts';
import { claimsTasks, tasksExtension } from './tasks-extension.ts';
import { answerResult } from './tool-calls.ts';
import type { ToolDefinition } from './tools.ts';

/** Whether the request's envelope says its client takes tasks (the extension among its capabilities). */
export const declaresTasks = (context: ServerContext) =>
  claimsTasks((context.mcpReq as { envelope?: Record<string, unknown> }).envelope);

/** A task method from a client that did not declare the extension: -32021, naming what it would have to declare. */
function requireDeclared(context: ServerContext): void {
  if (!declaresTasks(context))
    throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [tasksExtension]: {} } } });
}

type Status = 'working' | 'completed' | 'cancelled';

/** A generation as the extension's task: a failed one is completed, its result the tool's error. */
function taskOf(call: ToolCallContext, generation: Generation) {
  const createdAt = generation.created_at ?? new Date().toISOString();
  const status: Status = !hasEnded(generation.status)
    ? 'working'
    : generation.error === cancelledError
      ? 'cancelled'
      : 'completed';
  return {
    taskId: generation.id,
    status,
    statusMessage: statusMessage(generation),
    createdAt,
    lastUpdatedAt: generation.updated_at ?? createdAt,
    ttlMs: ttlOf(call),
    pollIntervalMs,
  };
}

/** A refusal as the JSON-RPC error the 2025 form answers (its code, the API's `{ error, message }` as data). */
async function answering<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    const refusal = error instanceof TaskRequestError ? error : asRequestError(error);
    throw new ProtocolError(refusal.code, refusal.message, refusal.data);
  }
}

/** `generate` as a task: admitted as POST /generations admits it, answered at once with its task. */
export function createModernTask(call: ToolCallContext, tool: ToolDefinition, args: Record<string, unknown>) {
  return answering(async () => {
    requireKey(call);
    const checked = tool.input.safeParse(args);
    if (!checked.success) throw new TaskRequestError(-32602, checked.error.message);
    const answer = await run(call, 'createGeneration', tool.request(args));
    return { resultType: 'task' as const, ...taskOf(call, answer.body as Generation) };
  });
}

/** tasks/get, tasks/update and tasks/cancel of the extension, on one request's server. */
export function serveModernTasks(server: Server, call: ToolCallContext): void {
  server.setRequestHandler('tasks/get', { params: taskParams }, (params, context) => {
    requireDeclared(context);
    return answering(async () => {
      requireKey(call);
      const generation = await readGeneration(call, params.taskId);
      const task = taskOf(call, generation);
      if (task.status !== 'completed') return task;
      const result = await answerResult(call, generation);
      // The result inline is a 2026 tools/call result: it names its own resultType (the SDK stamps only the answer).
      const failed = generation.status === 'failed' ? { isError: true } : {};
      return { ...task, result: { resultType: 'complete', ...result, ...failed } };
    });
  });
  // A generation never waits for input, so no task of this server is ever input_required.
  server.setRequestHandler('tasks/update', { params: taskParams }, (params, context) => {
    requireDeclared(context);
    return answering(async () => {
      requireKey(call);
      const current = await readGeneration(call, params.taskId);
      throw new TaskRequestError(-32602, `Task ${current.id} is not waiting for input (${current.status}).`);
    });
  });
  // Cancelling an ended task is the same empty ack, and changes nothing (the extension makes cancel idempotent).
  server.setRequestHandler('tasks/cancel', { params: taskParams }, (params, context) => {
    requireDeclared(context);
    return answering(async () => {
      requireKey(call);
      const current = await readGeneration(call, params.taskId);
      if (!hasEnded(current.status)) await run(call, 'cancelGeneration', { params: { id: params.taskId } });
      return {};
    });
  });
}
