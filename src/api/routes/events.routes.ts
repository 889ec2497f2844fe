import { ownTasksOnly } from '../../accounts/api-keys.ts';
import type { Request, Response } from 'express';
import type { Principal } from '../../accounts/api-keys.ts';
import { openAccountEvents, openTaskEvents, type OpenedStream } from '../../orchestration/generations/events.ts';
import { endpointDescriptions } from '../descriptions.ts';
import { type ApiContext, defineEndpoint } from '../endpoint.ts';
import { eventStreamSignal } from '../events/stream-signal.ts';
import type { AuthRequirement } from '../auth.ts';
import { holdLongLived } from '../long-lived.ts';
import { EventStreamHeadersSchema, lastEventId, TaskStreamEventSchema } from '../schemas/events.schemas.ts';
import { GenerationIdParamsSchema } from '../schemas/generations.schemas.ts';

const eventStream = {
  status: 200,
  description: 'A stream of server-sent events (`text/event-stream`), each described by this schema',
  schema: TaskStreamEventSchema,
  eventStream: true,
} as const;

interface StreamCall {
  principal: Principal;
  ctx: ApiContext;
  req: Request;
  res: Response;
  auth: AuthRequirement;
}

/** What both streams start from: the caller (holding one of its slots), where it resumes, and when it ends. */
function streamRequest({ principal, ctx, req, res, auth }: StreamCall, lastEventIdHeader: string | undefined) {
  holdLongLived(ctx.longLived, req, res, principal.account.id);
  return {
    account: principal.account,
    lastEventId: lastEventId(lastEventIdHeader),
    signal: eventStreamSignal(ctx, { req, res, principal, auth }),
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
    description: endpointDescriptions.streamGenerationEvents,
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
    handle: async ({ params, headers, principal, ctx, req, res }) => {
      const request = streamRequest({ principal, ctx, req, res, auth: 'any_or_task_token' }, headers['Last-Event-ID']);
      const own = { onlyTask: principal.task, onlyKey: ownTasksOnly(principal) };
      return answer(await openTaskEvents(ctx, { ...request, taskId: params.id, ...own }));
    },
  }),
  defineEndpoint({
    method: 'get',
    path: '/events',
    operationId: 'streamAccountEvents',
    summary: "Stream the events of all the caller's tasks (SSE)",
    description: endpointDescriptions.streamAccountEvents,
    tags: ['Generations'],
    auth: 'any',
    request: { headers: EventStreamHeadersSchema },
    success: eventStream,
    handle: async ({ headers, principal, ctx, req, res }) => {
      const request = streamRequest({ principal, ctx, req, res, auth: 'any' }, headers['Last-Event-ID']);
      return answer(await openAccountEvents(ctx, { ...request, onlyKey: ownTasksOnly(principal) }));
    },
  }),
];
