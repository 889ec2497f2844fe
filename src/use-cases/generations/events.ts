// The event streams (GET /generations/{id}/events, GET /events): subscribe to this process's feed first, then read
// what the stream has not sent, and again at every wake-up, so nothing committed between the two is missed. An ended
// task's event carries the task body exactly as GET /generations/{id} answers it, read when it is sent.
import { hasEnded } from '../../domain/values.ts';
import type { TaskEventFeed } from '../../generations/events/event-feed.ts';
import {
  accountCursor,
  accountEventsAfter,
  eventPageSize,
  type TaskEvent,
  type TaskEventType,
  taskEventsAfter,
} from '../../generations/events/task-events.ts';
import { type GenerationRead, type GenerationReadDeps, readGeneration } from './read.ts';

export interface EventStreamDeps extends GenerationReadDeps {
  taskEvents: TaskEventFeed;
}

/** One event as a stream sends it; `id` absent only for an ended task whose history was swept. */
export interface StreamedEvent {
  id?: string;
  type: TaskEventType;
  data: unknown;
}

export interface EventStreamRequest {
  account: GenerationRead['account'];
  /** `Last-Event-ID`: resume after it. */
  lastEventId?: bigint;
  /** The caller hung up or the server is shutting down: the stream ends. */
  signal: AbortSignal;
}

/** `events`: null when a resumed stream of an ended task has nothing left (answered 204: EventSource stops). */
export interface OpenedStream {
  events: AsyncIterable<StreamedEvent> | Iterable<StreamedEvent> | null;
}

const isFinal = (type: TaskEventType) => type === 'completed' || type === 'failed';

/** A wake-up a stream waits for: a notification, the next poll of held-back events, or the end of the stream. */
function createWakeUp(signal: AbortSignal) {
  let woken = false;
  let release: (() => void) | undefined;
  const wake = () => {
    woken = true;
    release?.();
  };
  signal.addEventListener('abort', wake, { once: true });
  return {
    wake,
    async wait(timeoutMs?: number) {
      if (!woken) {
        await new Promise<void>((resolve) => {
          const timer = timeoutMs === undefined ? undefined : setTimeout(resolve, timeoutMs);
          release = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        release = undefined;
      }
      woken = false;
    },
  };
}

/** Subscribes for the stream's life: until it ends, or its caller goes (even before the first event is asked for). */
async function subscribeWhileOpen(
  deps: EventStreamDeps,
  input: EventStreamRequest,
  wake: (taskId: string | undefined) => void,
): Promise<() => void> {
  const unsubscribe = await deps.taskEvents.subscribe(input.account.id, wake);
  input.signal.addEventListener('abort', unsubscribe, { once: true });
  return unsubscribe;
}

async function sendable(deps: EventStreamDeps, read: GenerationRead, event: TaskEvent): Promise<StreamedEvent> {
  const data = isFinal(event.type) ? (await readGeneration(deps, { ...read, taskId: event.taskId })).task : event.data;
  return { id: event.id.toString(), type: event.type, data };
}

/** The events of one task (the caller's own: another's is not found), ending with its final one. */
export async function openTaskEvents(
  deps: EventStreamDeps,
  input: EventStreamRequest & { taskId: string; onlyTask?: string; onlyKey?: string },
): Promise<OpenedStream> {
  const wakeUp = createWakeUp(input.signal);
  const unsubscribe = await subscribeWhileOpen(deps, input, (taskId) => {
    if (taskId === undefined || taskId === input.taskId) wakeUp.wake();
  });
  const read = { taskId: input.taskId, account: input.account, onlyTask: input.onlyTask, onlyKey: input.onlyKey };
  try {
    const { task } = await readGeneration(deps, read);
    let after = input.lastEventId ?? 0n;
    const first = await taskEventsAfter(deps.prisma, input.taskId, after);
    if (first.length === 0 && hasEnded(task.status)) {
      unsubscribe();
      // Its history was swept: the final event alone, once (a resumed stream has had it).
      if (input.lastEventId !== undefined) return { events: null };
      return { events: [{ type: task.status as TaskEventType, data: task }] };
    }
    async function* events(): AsyncGenerator<StreamedEvent> {
      let page = first;
      while (!input.signal.aborted) {
        for (const event of page) {
          after = event.id;
          yield await sendable(deps, read, event);
          if (isFinal(event.type)) return;
        }
        if (page.length < eventPageSize) await wakeUp.wait();
        page = input.signal.aborted ? [] : await taskEventsAfter(deps.prisma, input.taskId, after);
      }
    }
    return { events: unsubscribingAfter(events(), unsubscribe) };
  } catch (error) {
    unsubscribe();
    throw error;
  }
}

/** The stream's events; however it ends (the final event, the client gone, a failure), its subscription ends too. */
async function* unsubscribingAfter(events: AsyncGenerator<StreamedEvent>, unsubscribe: () => void) {
  try {
    yield* events;
  } finally {
    unsubscribe();
  }
}

// While events wait for an older transaction in flight, read again after this, doubling up to the maximum.
const pendingPollMs = { first: 10, max: 500 };

/**
 * Every event of the account's tasks from the cursor on; never ends by itself. `onlyKey` (a key with a policy): only
 * its own tasks' events, and the budget alerts of itself and the keys below it.
 */
export async function openAccountEvents(
  deps: EventStreamDeps,
  input: EventStreamRequest & { onlyKey?: string },
): Promise<OpenedStream> {
  const wakeUp = createWakeUp(input.signal);
  const unsubscribe = await subscribeWhileOpen(deps, input, () => wakeUp.wake());
  const read = { account: input.account };
  try {
    let cursor = await accountCursor(deps.prisma, input.account.id, input.lastEventId);
    async function* events(): AsyncGenerator<StreamedEvent> {
      let pollMs = pendingPollMs.first;
      while (!input.signal.aborted) {
        const { events: page, pending } = await accountEventsAfter(
          deps.prisma,
          input.account.id,
          cursor,
          input.onlyKey,
        );
        for (const event of page) {
          cursor = { ...cursor, txId: event.txId, id: event.id };
          yield await sendable(deps, { ...read, taskId: event.taskId }, event);
        }
        if (page.length === eventPageSize) continue;
        if (!pending) pollMs = pendingPollMs.first;
        else if (page.length === 0) pollMs = Math.min(pollMs * 2, pendingPollMs.max);
        await wakeUp.wait(pending ? pollMs : undefined);
      }
    }
    return { events: unsubscribingAfter(events(), unsubscribe) };
  } catch (error) {
    unsubscribe();
    throw error;
  }
}
