import type { Response } from 'express';
import type { Principal } from '../../accounts/api-keys.ts';
import { openAccountEvents, openTaskEvents, type OpenedStream } from '../../orchestration/generations/events.ts';
import { endpointDescriptions } from '../descriptions.ts';
import { defineEndpoint } from '../endpoint.ts';
import { EventStreamHeadersSchema, lastEventId, TaskStreamEventSchema } from '../schemas/events.schemas.ts';
import { GenerationIdParamsSchema } from '../schemas/generations.schemas.ts';
import { hangUpSignal } from '../shutdown-gate.ts';

const eventStream = {
  status: 200,
  description: 'A stream of server-sent events (`text/event-stream`), each described by this schema',
  schema: TaskStreamEventSchema,
  eventStream: true,
} as const;

/** What both streams start from: the caller, where it resumes, and when it goes. */
const streamRequest = (principal: Principal, lastEventIdHeader: string | undefined, res: Response) => ({
  account: principal.account,
  lastEventId: lastEventId(lastEventIdHeader),
  signal: hangUpSignal(res),
});

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
    handle: async ({ params, headers, principal, ctx, res }) => {
      const request = streamRequest(principal, headers['Last-Event-ID'], res);
      return answer(await openTaskEvents(ctx, { ...request, taskId: params.id, onlyTask: principal.task }));
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
    handle: async ({ headers, principal, ctx, res }) => {
      return answer(await openAccountEvents(ctx, streamRequest(principal, headers['Last-Event-ID'], res)));
    },
  }),
];
