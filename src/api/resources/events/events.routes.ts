import { ownTasksOnly } from '../../../accounts/api-keys.ts';
import type { Principal } from '../../../accounts/api-keys.ts';
import { openAccountEvents, openTaskEvents, type OpenedStream } from '../../../use-cases/generations/events.ts';
import { type ApiContext, defineEndpoint } from '../../endpoint.ts';
import { eventStreamSignal } from '../../events/stream-signal.ts';
import type { AuthRequirement } from '../../auth.ts';
import type { Call } from '../../call.ts';
import { holdLongLived } from '../../long-lived.ts';
import { EventStreamHeadersSchema, lastEventId, TaskStreamEventSchema } from './events.schemas.ts';
import { GenerationIdParamsSchema } from '../generations/generations.schemas.ts';

const eventStream = {
  status: 200,
  description: 'A stream of server-sent events (`text/event-stream`), each described by this schema',
  schema: TaskStreamEventSchema,
  eventStream: true,
} as const;

interface StreamCall {
  principal: Principal;
  ctx: ApiContext;
  call: Call;
  auth: AuthRequirement;
}

/** What both streams start from: the caller (holding one of its slots), where it resumes, and when it ends. */
function streamRequest({ principal, ctx, call, auth }: StreamCall, lastEventIdHeader: string | undefined) {
  holdLongLived(ctx.longLived, call, principal.account.id);
  return {
    account: principal.account,
    lastEventId: lastEventId(lastEventIdHeader),
    signal: eventStreamSignal(ctx, { call, principal, auth }),
  };
}

/** The stream, or 204 where a resumed stream has nothing left to send. */
const answer = ({ events }: OpenedStream) => (events ? { body: undefined, events } : { status: 204, body: undefined });

export const eventEndpoints = [
  defineEndpoint({
    method: 'get',
    path: '/generations/{id}/events',
    operationId: 'streamGenerationEvents',
    summary: "Stream a generation task's events (SSE)",
    description:
      "Gateway extension (not in interface 1.1.0). The caller's own task as a stream of server-sent events (`text/event-stream`): `queued`, `processing`, `progress` (each new progress report), then `completed` or `failed`, whose `data` is the task exactly as GET /generations/{id} answers it; the stream closes after it. A task that has ended already sends its history and closes at once. Every event has an `id:`; a client reconnecting with `Last-Event-ID` (EventSource does so itself) resumes after it, losing and repeating nothing; resuming a task whose last event was already received answers 204 (EventSource then stops). While nothing happens, a `: keep-alive` comment line is sent every EVENT_STREAM_HEARTBEAT_SECONDS (15 s). Same authorization as GET /generations/{id}: an API key, or an x402-paid task's `access_token` for that task; someone else's task answers 404 exactly like an unknown one.",
    tags: ['Generations'],
    auth: 'any_or_task_token',
    request: { params: GenerationIdParamsSchema, headers: EventStreamHeadersSchema },
    success: {
      ...eventStream,
      alternative: {
        status: 204,
        description: 'Resumed with `Last-Event-ID` after the last event of a task that has ended: nothing more to send',
        schema: null,
      },
    },
    errors: ['not_found'],
    handle: async ({ params, headers, principal, ctx, call }) => {
      const request = streamRequest({ principal, ctx, call, auth: 'any_or_task_token' }, headers['Last-Event-ID']);
      const own = { onlyTask: principal.task, onlyKey: ownTasksOnly(principal) };
      return answer(await openTaskEvents(ctx, { ...request, taskId: params.id, ...own }));
    },
  }),
  defineEndpoint({
    method: 'get',
    path: '/events',
    operationId: 'streamAccountEvents',
    summary: "Stream the events of all the caller's tasks (SSE)",
    description:
      "Gateway extension (not in interface 1.1.0). The events of all of the caller's tasks as one stream of server-sent events (`text/event-stream`), the same events as GET /generations/{id}/events (the task id is in each `data`), from the moment of the request on; it stays open. Event ids are global: reconnecting with `Last-Event-ID` resumes after that event, losing and repeating nothing. `: keep-alive` comment lines every EVENT_STREAM_HEARTBEAT_SECONDS (15 s) while idle. It also carries `key.budget_threshold` when an admission brings a key's budget window to 80 % and then 100 % of its budget (once per key, window and threshold; `data`: `{ key_id, key_name, threshold, limit, spent, reserved, window, resets_at }`; the same event goes to the account's webhook). A key with a policy receives only the events of the tasks it created and the budget alerts of itself and the keys it made. API keys only.",
    tags: ['Generations'],
    auth: 'any',
    request: { headers: EventStreamHeadersSchema },
    success: eventStream,
    handle: async ({ headers, principal, ctx, call }) => {
      const request = streamRequest({ principal, ctx, call, auth: 'any' }, headers['Last-Event-ID']);
      return answer(await openAccountEvents(ctx, { ...request, onlyKey: ownTasksOnly(principal) }));
    },
  }),
];
