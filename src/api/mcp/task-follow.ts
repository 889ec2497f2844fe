// An MCP wait for a task to end (generate and get_generation with `wait_seconds`, tasks/result): it follows the task's
// events on this process's feed (the one LISTEN connection the event streams share) and reads the task once per wake-up,
// telling the client how far it is; no polling. Where the feed cannot be had, it reads the task every few seconds.
import type { IncomingHttpHeaders } from 'node:http';
import type { ServerContext } from '@modelcontextprotocol/server';
import { hasEnded } from '../../domain/values.ts';
import { authenticated, run, type ToolCallContext } from './mcp-call.ts';

/**
 * What a tool call needs of its request: its `_meta`, its cancellation, and a way to send the client a progress
 * notification (the SDK's `ctx.mcpReq`, through extraOf).
 */
export interface Extra {
  _meta?: { progressToken?: string | number; [key: string]: unknown };
  signal: AbortSignal;
  sendNotification(notification: {
    method: 'notifications/progress';
    params: { progressToken: string | number; progress: number; total: number; message: string };
  }): Promise<void>;
}

export const extraOf = (context: ServerContext): Extra => ({
  _meta: context.mcpReq._meta as Extra['_meta'],
  signal: context.mcpReq.signal,
  sendNotification: (notification) => context.mcpReq.notify(notification),
});

/** How often a wait reads its task without the feed (the database's LISTEN connection unavailable). */
const unfollowedReadMs = 2_000;

export interface TaskBody {
  id: string;
  status: string;
  progress?: { stage?: string; percent?: number } | null;
}

/** The highest percent reported to the client so far: kept across waits that follow one task in turn. */
export interface ReportedProgress {
  percent: number;
}

interface TaskChanges {
  /** Resolves at the task's next change (at once if one came meanwhile), at `until`, or when the wait stops. */
  next(until: number): Promise<void>;
  close(): void;
}

/** Subscribes to the task's account on the feed (before the first read, so no change is missed between the two). */
async function taskChanges(
  mcp: ToolCallContext,
  taskId: string,
  reader: IncomingHttpHeaders,
  stop: AbortSignal,
): Promise<TaskChanges> {
  let changed = false;
  let release: (() => void) | undefined;
  // A wake-up without a task is the feed's connection regained: something may have changed.
  const wake = (woken: string | undefined) => {
    if (woken !== undefined && woken !== taskId) return;
    changed = true;
    release?.();
  };
  const { account } = await authenticated(mcp, reader);
  const unsubscribe = await mcp.ctx.taskEvents.subscribe(account.id, wake).catch((error: unknown) => {
    mcp.log.warn({ err: error }, 'an MCP wait reads its task without the event feed');
    return undefined;
  });
  return {
    async next(until) {
      if (!changed && !stop.aborted) {
        const ms = Math.min(until, unsubscribe ? until : Date.now() + unfollowedReadMs) - Date.now();
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => release?.(), Math.max(0, ms));
          release = () => {
            clearTimeout(timer);
            stop.removeEventListener('abort', release!);
            resolve();
          };
          stop.addEventListener('abort', release, { once: true });
        });
        release = undefined;
      }
      changed = false;
    },
    close: () => unsubscribe?.(),
  };
}

/**
 * Where the task is: queued, or running once it reports its progress (its first stage, then each percent). MCP asks
 * that progress only ever increases, so a percent is reported once it moves.
 */
async function reportProgress(task: TaskBody, extra: Extra, reported: ReportedProgress): Promise<void> {
  const progressToken = extra._meta?.progressToken;
  const percent = task.progress?.percent ?? 0;
  const known = task.status !== 'processing' || task.progress;
  if (progressToken === undefined || !known || percent <= reported.percent) return;
  reported.percent = percent;
  const message = [task.status, task.progress?.stage].filter(Boolean).join(': ');
  await extra.sendNotification({
    method: 'notifications/progress',
    params: { progressToken, progress: percent, total: 100, message },
  });
}

/**
 * The task (read with `reader`'s credential) once it ends or the wait is up, telling the client how far it is when it
 * asked (progressToken). The client cancelling, or the server shutting down, ends the wait with the task as it is.
 */
export async function follow(
  mcp: ToolCallContext,
  id: string,
  waitSeconds: number,
  extra: Extra,
  reader: IncomingHttpHeaders,
  reported: ReportedProgress = { percent: -1 },
) {
  const deadline = Date.now() + waitSeconds * 1000;
  const stop = AbortSignal.any([extra.signal, mcp.exchange.signal]);
  const changes = await taskChanges(mcp, id, reader, stop);
  try {
    for (;;) {
      const answer = await run(mcp, 'getGeneration', { params: { id } }, reader);
      const task = answer.body as TaskBody;
      if (hasEnded(task.status) || Date.now() >= deadline || stop.aborted) return answer;
      await reportProgress(task, extra, reported);
      await changes.next(deadline);
    }
  } finally {
    changes.close();
  }
}
