// MCP 2026-07-28's tasks extension (SEP-2663), as a request names it: a client takes tasks only if the capabilities in
// its request's envelope list the extension; then tasks/get, tasks/update and tasks/cancel are its to call.
import { CLIENT_CAPABILITIES_META_KEY, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';

export const tasksExtension = 'io.modelcontextprotocol/tasks';

/** The task methods of each revision: 2025-11-25's own, and those the 2026 extension keeps. */
export const legacyTaskMethods = new Set(['tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel']);
export const modernTaskMethods = new Set(['tasks/get', 'tasks/update', 'tasks/cancel']);

type Envelope = Record<string, unknown> | undefined;

/** Whether a request's `_meta` is the 2026 envelope (it names its protocol version). */
export const isModernEnvelope = (meta: Envelope) => typeof meta?.[PROTOCOL_VERSION_META_KEY] === 'string';

/** Whether the client capabilities a 2026 envelope carries list the tasks extension. */
export function claimsTasks(meta: Envelope): boolean {
  const capabilities = meta?.[CLIENT_CAPABILITIES_META_KEY] as { extensions?: Record<string, unknown> } | undefined;
  return capabilities?.extensions?.[tasksExtension] !== undefined;
}
