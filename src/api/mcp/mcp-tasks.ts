// MCP tasks (spec 2025-11-25): `generate` called with `task` answers at admission, the generation's id as the task's
// id, and tasks/get, tasks/result, tasks/cancel and tasks/list read and cancel it through the REST endpoints with the
// caller's key. No task store of the SDK's (those live in one process's memory): a task is its generation, in
// PostgreSQL and its workflow, so any api process answers for it, before and after a restart.
import { ProtocolErrorCode, RELATED_TASK_META_KEY, type Server } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { cancelledError } from '../../../workflows/contracts/generation.types.ts';
import { hasEnded } from '../../domain/values.ts';
import { knownApiError } from '../middleware/errors.ts';
import { maxWaitSeconds, type ToolDefinition } from './tools.ts';
import { bearerOf } from './mcp-credentials.ts';
import { holdWaitSlot, run, type ToolCallContext } from './mcp-call.ts';
import { extraOf, follow, type TaskBody } from './task-follow.ts';
import { answerResult } from './tool-calls.ts';

/** What the server says it does with tasks: tools/call as a task, list and cancel. */
export const taskCapabilities = { list: {}, cancel: {}, requests: { tools: { call: {} } } };

/** How often a client should look again: a generation's progress is written at most once a second. */
export const pollIntervalMs = 2_000;

/** How long a task is kept, as MCP's `ttl`: as long as its outputs (OUTPUT_RETENTION_DAYS; 0: for ever, null). */
export const ttlOf = (call: ToolCallContext) => {
  const days = call.ctx.config.outputs.retentionDays;
  return days > 0 ? days * 86_400_000 : null;
};

export type Generation = TaskBody & { created_at?: string; updated_at?: string; error?: string };

/** A task as 2025-11-25 describes it. */
type Task = {
  taskId: string;
  status: 'working' | 'completed' | 'failed' | 'cancelled';
  statusMessage: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number | null;
  pollInterval: number;
};

function taskStatus(generation: Generation): Task['status'] {
  if (!hasEnded(generation.status)) return 'working';
  if (generation.status === 'completed') return 'completed';
  return generation.error === cancelledError ? 'cancelled' : 'failed';
}

/** "processing: rendering, 42 %", "failed: upstream_error": what the generation is doing or why it ended. */
export function statusMessage(generation: Generation): string {
  const { stage, percent } = generation.progress ?? {};
  const detail =
    generation.error ?? [stage, percent === undefined ? undefined : `${percent} %`].filter(Boolean).join(', ');
  return detail ? `${generation.status}: ${detail}` : generation.status;
}

function taskOf(call: ToolCallContext, generation: Generation): Task {
  const createdAt = generation.created_at ?? new Date().toISOString();
  return {
    taskId: generation.id,
    status: taskStatus(generation),
    statusMessage: statusMessage(generation),
    createdAt,
    lastUpdatedAt: generation.updated_at ?? createdAt,
    ttl: ttlOf(call),
    pollInterval: pollIntervalMs,
  };
}

/**
 * A JSON-RPC error as the SDK sends it (its `code`, `message`, `data`). Not an McpError, whose message already says
 * "MCP error -32602: …", which the client's McpError would say again.
 */
export class TaskRequestError extends Error {
  constructor(
    readonly code: ProtocolErrorCode,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/**
 * A refusal as a JSON-RPC error (a task request has no tool result to carry it): the caller's mistake as invalid
 * params (an unknown task, an ended one, a bad cursor), a missing or too narrow key as an invalid request, ours (and
 * a rate limit) as internal; the API's `{ error, message }` as its data.
 */
export function asRequestError(error: unknown): TaskRequestError {
  const known = knownApiError(error);
  if (!known) return new TaskRequestError(ProtocolErrorCode.InternalError, 'An internal error occurred.');
  // -32602 says the task is unknown or ended, so a client may forget it: never for a refusal that passes (429, 5xx).
  const code =
    known.status === 401 || known.status === 403 || known.status === 402
      ? ProtocolErrorCode.InvalidRequest
      : known.status >= 500 || known.status === 429
        ? ProtocolErrorCode.InternalError
        : ProtocolErrorCode.InvalidParams;
  return new TaskRequestError(code, known.message, known.toBody());
}

async function answering<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw error instanceof TaskRequestError ? error : asRequestError(error);
  }
}

/** Only a key reads a task later: a keyless (x402) call is paid and answered as an ordinary call. */
export function requireKey(call: ToolCallContext): void {
  if (!bearerOf(call.headers)) {
    throw new TaskRequestError(
      ProtocolErrorCode.InvalidRequest,
      'A task needs an API key (Authorization: Bearer), which tasks/get and tasks/result are read with; without one, call generate without `task` (x402 pays that call).',
    );
  }
}

/** `generate` as a task: admitted as POST /generations admits it, answered at once with the generation as the task. */
export function createTask(
  call: ToolCallContext,
  tool: ToolDefinition,
  args: Record<string, unknown>,
): Promise<{ content: []; task: Task }> {
  return answering(async () => {
    requireKey(call);
    const checked = tool.input.safeParse(args);
    if (!checked.success) throw new TaskRequestError(ProtocolErrorCode.InvalidParams, checked.error.message);
    const answer = await run(call, 'createGeneration', tool.request(args));
    // The SDK's 2025 wire asks every tools/call answer for `content`, a task's too.
    return { content: [], task: taskOf(call, answer.body as Generation) };
  });
}

export const readGeneration = async (call: ToolCallContext, taskId: string) =>
  (await run(call, 'getGeneration', { params: { id: taskId } })).body as Generation;

/** A task request's params: the task, by its id (the generation's). */
export const taskParams = z.looseObject({ taskId: z.string() });
const pageParams = z.looseObject({ cursor: z.string().optional() });

/** The handlers of tasks/get, tasks/result, tasks/cancel and tasks/list, on one request's server. */
export function serveTasks(server: Server, call: ToolCallContext): void {
  server.setRequestHandler('tasks/get', { params: taskParams }, (params) =>
    answering(async () => {
      requireKey(call);
      return taskOf(call, await readGeneration(call, params.taskId));
    }),
  );
  // Held until the generation ends (read once per event of its, progress reported), then its tool result.
  server.setRequestHandler('tasks/result', { params: taskParams }, (params, context) =>
    answering(async () => {
      const extra = extraOf(context);
      requireKey(call);
      await holdWaitSlot(call);
      const reported = { percent: -1 };
      let answer = await follow(call, params.taskId, maxWaitSeconds, extra, call.headers, reported);
      while (!hasEnded((answer.body as Generation).status)) {
        // The task runs on; a client that asks again (this process or another) gets its result.
        if (extra.signal.aborted || call.exchange.signal.aborted)
          throw new TaskRequestError(
            ProtocolErrorCode.InternalError,
            'The server is shutting down: ask for the result again.',
          );
        answer = await follow(call, params.taskId, maxWaitSeconds, extra, call.headers, reported);
      }
      const generation = answer.body as Generation;
      const result = await answerResult(call, generation);
      return {
        ...result,
        ...(generation.status === 'failed' ? { isError: true } : {}),
        _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId: params.taskId } },
      };
    }),
  );
  server.setRequestHandler('tasks/cancel', { params: taskParams }, (params) =>
    answering(async () => {
      requireKey(call);
      const current = await readGeneration(call, params.taskId);
      if (hasEnded(current.status)) {
        throw new TaskRequestError(
          ProtocolErrorCode.InvalidParams,
          `Cannot cancel task: it has already ended (${current.status}).`,
        );
      }
      const answer = await run(call, 'cancelGeneration', { params: { id: params.taskId } });
      // Accepted (200, or 202 while the workflow winds down): MCP has the task cancelled before the answer.
      return { ...taskOf(call, answer.body as Generation), status: 'cancelled' as const };
    }),
  );
  server.setRequestHandler('tasks/list', { params: pageParams }, (params) =>
    answering(async () => {
      requireKey(call);
      const query = { limit: '20', ...(params.cursor ? { cursor: params.cursor } : {}) };
      const page = (await run(call, 'listGenerations', { query })).body as {
        generations: Generation[];
        next_cursor: string | null;
      };
      return {
        tasks: page.generations.map((generation) => taskOf(call, generation)),
        ...(page.next_cursor ? { nextCursor: page.next_cursor } : {}),
      };
    }),
  );
}
