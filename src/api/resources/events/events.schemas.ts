// The event streams' request header and one event as the stream carries it (OpenAPI 3.1 describes a
// text/event-stream by the schema of each event: its `id`, `event` name and `data` line).
import { taskEventTypes } from '../../../generations/events/task-events.ts';
import { z } from '../../schemas/zod.ts';

const eventId = z.string().regex(/^\d{1,18}$/);

export const EventStreamHeadersSchema = z.object({
  'Last-Event-ID': z
    .union([eventId, z.literal('')])
    .optional()
    .openapi({
      description:
        'Resume after this event: the `id:` of the last event received (EventSource sends it when it reconnects). ' +
        'Nothing before it is sent again and nothing after it is lost.',
      example: '1042',
    }),
});

export const TaskStreamEventSchema = z
  .object({
    id: eventId.optional().openapi({
      description: 'Increases with each event of a task; send the last one back as `Last-Event-ID` to resume',
    }),
    event: z.enum(taskEventTypes).openapi({
      description:
        '`queued`, `processing`, `progress` (a new progress report), then `completed` or `failed`, the last of a task; ' +
        '`key.budget_threshold` (GET /events only): a key reached 80 or 100 % of its budget window',
    }),
    data: z.string().openapi({
      description:
        'JSON. `queued`/`processing`: `{ id, status, created_at, started_at? }`; `progress`: `{ id, status, progress }` ' +
        '(`progress` as GET /generations/{id} shows it); `completed`/`failed`: the task exactly as GET /generations/{id} answers it; ' +
        '`key.budget_threshold`: `{ key_id, key_name, threshold, limit, spent, reserved, window, resets_at }`',
    }),
    retry: z.number().int().optional(),
  })
  .openapi('TaskStreamEvent', {
    description: 'One server-sent event; idle streams also carry `: keep-alive` comment lines (no event)',
  });

/** Last-Event-ID as the stream's position; empty or absent: from the start (a task) or from now (an account). */
export const lastEventId = (value: string | undefined): bigint | undefined => (value ? BigInt(value) : undefined);
