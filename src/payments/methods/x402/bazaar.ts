// x402's Bazaar discovery extension on our 402 offers (`extensions.bazaar`, @x402/extensions): how to call the paid
// endpoint and what it answers, so a facilitator that catalogs paid resources can list the generation endpoint. The
// input schema names the request's main fields; GET /api/v1/openapi.json has every one.
import { bazaarResourceServerExtension, BAZAAR, declareDiscoveryExtension } from '@x402/extensions/bazaar';
import { generateTypes, generationTypes, webhookEventFilters } from '../../../domain/values.ts';
import { exampleGeneration } from '../../../generations/example-request.ts';

const text = { type: 'string' } as const;
const url = { type: 'string', format: 'uri' } as const;
const positive = { type: 'integer', minimum: 1 } as const;

const inputSchema = {
  type: 'object',
  properties: {
    type: { type: 'string', enum: [...generationTypes] },
    model: { ...text, description: 'A model id from GET /api/v1/models (those with supports_x402)' },
    prompt: text,
    system_prompt: text,
    messages: {
      type: 'array',
      items: {
        type: 'object',
        properties: { role: { type: 'string', enum: ['system', 'user', 'assistant'] }, content: text },
        required: ['role', 'content'],
      },
    },
    max_tokens: positive,
    negative_prompt: text,
    image_url: url,
    video_url: url,
    audio_url: url,
    images: { type: 'array', items: url },
    videos: { type: 'array', items: url },
    aspect_ratio: text,
    resolution: text,
    duration: positive,
    num_outputs: positive,
    sound: { type: 'boolean' },
    generate_type: { type: 'string', enum: [...generateTypes] },
    seed: { type: 'integer' },
    webhook_url: url,
    webhook_events: { type: 'array', items: { type: 'string', enum: [...webhookEventFilters] } },
  },
  required: ['type', 'model'],
};

const outputSchema = {
  type: 'object',
  properties: {
    id: text,
    type: text,
    model: text,
    status: { type: 'string', const: 'queued' },
    cost: { type: 'number', description: 'USD' },
    created_at: { type: 'string', format: 'date-time' },
    poll_url: { ...text, description: 'GET it (or …/events, a server-sent event stream) with the access_token' },
    access_token: { ...text, description: 'Bearer token (tt_…) that reads and may cancel this task' },
  },
  required: ['id', 'status', 'poll_url', 'access_token'],
};

/** The `bazaar` extension of POST /api/v1/generations, with the request being paid for as its example. */
export function generationDiscovery(example: { type: string; model: string }): Record<string, unknown> {
  const declared = declareDiscoveryExtension({
    bodyType: 'json',
    input: exampleGeneration(example),
    inputSchema,
    output: {
      example: {
        id: 'gen_4Qm8xY2pL7vN1cR5tB9wZk',
        ...example,
        status: 'queued',
        cost: 0.025,
        created_at: '2026-11-26T12:00:00.000Z',
        poll_url: '/api/v1/generations/gen_4Qm8xY2pL7vN1cR5tB9wZk',
        access_token: 'tt_…',
      },
      schema: outputSchema,
    },
  });
  // What x402's own middleware does per request: the extension names the HTTP method it is paid on.
  const request = { method: 'POST', adapter: { getPath: () => '/api/v1/generations' } };
  const key = BAZAAR.key;
  return { [key]: bazaarResourceServerExtension.enrichDeclaration!(declared[key], request) };
}
