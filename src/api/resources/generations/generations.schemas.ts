import type { GenerationRequest, InputLayoutRequest } from '../../../domain/generation-request.ts';
import { generateTypes, type TaskProgress, webhookEventFilters } from '../../../domain/values.ts';
import { decodeHistoryCursor } from '../../../generations/history-cursor.ts';
import {
  GenerationTypeSchema,
  httpUrl,
  signatureAlgorithm,
  signatureHeader,
  TaskStatusSchema,
  taskIdParams,
} from '../../schemas/common.schemas.ts';
import { boundedInt, safeText, z } from '../../schemas/zod.ts';

// Replicate's `webhook_events_filter` values; which events of ours each selects is in src/domain/values.ts.
const webhookEvents = z
  .array(z.enum(webhookEventFilters))
  .min(1)
  .max(webhookEventFilters.length * 2)
  .optional()
  .openapi({
    description:
      "Extension, as Replicate's `webhook_events_filter`: which events `webhook_url` receives. `completed` selects " +
      '`generation.completed` and `generation.failed` (the webhooks this gateway sends for a task); `start`, `output` ' +
      'and `logs` are taken and select nothing more (follow a running task with GET /generations/{id}/events). ' +
      "Absent: every event, as before. The account's own webhook has its own filter (`events`, PUT /webhooks).",
    example: ['completed'],
  });

export const MessageSchema = z
  .object({ role: z.enum(['system', 'user', 'assistant']), content: safeText() })
  .openapi('Message');

export const GenerationRequestSchema = z
  .object({
    type: GenerationTypeSchema,
    model: safeText().min(1).openapi({ description: 'A model id from GET /models (the catalog is authoritative)' }),
    prompt: safeText().optional(),
    system_prompt: safeText().optional(),
    messages: z.array(MessageSchema).optional(),
    max_tokens: boundedInt(1).optional(),
    temperature: z.number().optional(),
    top_p: z.number().optional(),
    top_k: z.number().optional(),
    presence_penalty: z.number().optional(),
    frequency_penalty: z.number().optional(),
    repetition_penalty: z.number().optional(),
    enable_thinking: z.boolean().optional(),
    negative_prompt: safeText().optional(),
    image_url: httpUrl.optional().openapi({
      description: 'The input image; for `face-swap`, the picture whose face is replaced (required)',
    }),
    video_url: httpUrl.optional(),
    audio_url: httpUrl.optional(),
    images: z.array(httpUrl).optional().openapi({
      description: 'Input images; for `face-swap`, `[face]`: the face to put into `image_url` (required)',
    }),
    videos: z.array(httpUrl).optional(),
    aspect_ratio: safeText().optional(),
    resolution: safeText().optional(),
    duration: boundedInt(1).optional().openapi({ description: 'Seconds of output' }),
    num_outputs: boundedInt(1).optional(),
    sound: z
      .boolean()
      .optional()
      .openapi({
        description:
          'Extension: video with generated sound. `true` on a model with `supports_sound` adds its surcharge (as quoted), ' +
          'absent or `false` asks it for silent video; a model whose output always has sound takes `true` at no extra ' +
          'cost and refuses `false`, a silent model refuses `true` (400 naming `sound`)',
      }),
    generate_type: z.enum(generateTypes).optional().openapi({
      description:
        "Extension: a 3D model's mesh variant, one of its `generate_types` (priced as quoted); any other model refuses it",
    }),
    // JSON numbers are exact up to 2^53: a larger seed would not reach the provider as sent.
    seed: boundedInt(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER).optional(),
    webhook_url: httpUrl.optional().openapi({
      description:
        'Receives `generation.completed` or `generation.failed` as `{ "event", "data": <the task> }`, signed (Standard ' +
        "Webhooks) with your account's secret (GET /account/webhook-secret), retried for more than 24 hours",
    }),
    webhook_events: webhookEvents,
  })
  .openapi('GenerationRequest', {
    // A model that runs here with nothing else configured (a local engine), so the example works as written.
    example: { type: 'text-to-audio', model: 'local/espeak', prompt: 'Hello from the generation gateway.' },
  }) satisfies z.ZodType<GenerationRequest>;

/** The alternate layout of the usage examples: `{ model, input: { prompt, … }, webhook }`; `type` defaults to the model's. */
export const GenerationInputLayoutSchema = z
  .object({
    model: safeText().min(1),
    type: GenerationTypeSchema.optional(),
    input: GenerationRequestSchema.omit({ type: true, model: true, webhook_url: true, webhook_events: true }),
    webhook: httpUrl.optional(),
    webhook_events: webhookEvents,
  })
  .openapi('GenerationInputLayoutRequest', {
    description: 'Alternate layout: the same fields under `input`, the webhook as `webhook`.',
  }) satisfies z.ZodType<InputLayoutRequest>;

export const CreateGenerationBodySchema = z
  .union([GenerationInputLayoutSchema.strict(), GenerationRequestSchema])
  .openapi({
    description: 'Either the top-level layout (GenerationRequest) or the `input` layout; both mean the same request.',
  });

export const GenerationQueuedResponseSchema = z
  .object({
    id: z.string(),
    type: z.string(),
    model: z.string(),
    status: z.literal('queued'),
    cost: z.number().openapi({ description: 'Reserved cost in USD' }),
    cost_formatted: z.string().optional().openapi({ example: '$0.045' }),
    created_at: z.iso.datetime(),
    poll_url: z.string().openapi({ example: '/api/v1/generations/gen_abc123' }),
    access_token: z.string().optional().openapi({
      description:
        'x402-paid tasks only: a bearer token that reads this task (GET /generations/{id}, its alias and …/events) and may cancel it (POST /generations/{id}/cancel), nothing else',
      example: 'tt_4Qm…',
    }),
    webhook_secret: z.string().optional().openapi({
      description:
        "x402-paid tasks with a webhook_url only: the payer's Standard Webhooks signing secret, to verify the webhook",
    }),
    signature_header: signatureHeader.optional(),
    signature_algorithm: signatureAlgorithm.optional(),
  })
  .openapi('GenerationQueuedResponse');

export const TaskPaymentSchema = z
  .object({
    method: z.literal('x402'),
    scheme: z.string().openapi({ example: 'exact' }),
    network: z.string().openapi({ description: 'CAIP-2 network', example: 'eip155:8453' }),
    payer: z.string().openapi({ description: 'The paying address (lowercase)' }),
    amount: z.number().openapi({ description: 'Authorized amount in USD (USDC)' }),
    amount_settled: z.number().optional().openapi({ description: 'Moved on chain, in USD; only once settled' }),
    transaction: z.string().optional().openapi({ description: 'The settlement transaction hash' }),
    status: z.enum(['authorized', 'settling', 'settled', 'failed', 'abandoned']).openapi({
      description:
        'authorized: verified, not moved yet; settling: the transfer is being made (or its outcome is being found on chain); settled: paid on chain; failed: the payment no longer paid at settlement; abandoned: the task failed and the payment was never used',
    }),
  })
  .openapi('TaskPayment');

export const TaskProgressSchema = z
  .object({
    stage: z
      .string()
      .optional()
      .openapi({
        description:
          'What the task is doing: `downloading input`, `running`, `rendering` (local engines); `in upstream queue`, ' +
          '`starting upstream`, `running upstream` (upstream jobs)',
        example: 'rendering',
      }),
    percent: z.number().min(0).max(100).optional().openapi({
      description: 'How far it is, 0 to 100, where the engine or upstream can tell',
      example: 42,
    }),
    queue_position: z.int().min(0).optional().openapi({
      description: 'Jobs ahead of it in the upstream queue, where the upstream reports it (fal)',
      example: 3,
    }),
  })
  .openapi('TaskProgress', {
    description:
      'Gateway extension: what is known of a running task, updated at most once a second; every field optional, ' +
      'present only while the task is `processing`',
  }) satisfies z.ZodType<TaskProgress>;

export const GenerationStatusResponseSchema = z
  .object({
    id: z.string(),
    type: z.string().optional(),
    model: z.string(),
    status: TaskStatusSchema,
    prompt: safeText().optional(),
    output: z
      .url()
      .optional()
      .openapi({ description: 'First output; for text-to-text a link to the generated .txt artifact' }),
    outputs: z.array(z.url()).optional(),
    error: z.string().optional(),
    created_at: z.iso.datetime().optional(),
    updated_at: z.iso.datetime().optional(),
    completed_at: z.iso.datetime().optional(),
    started_at: z.iso.datetime().optional().openapi({
      description:
        'Gateway extension: when the task started processing (absent while `queued`); it may then still wait for a free provider slot',
    }),
    progress: TaskProgressSchema.optional(),
    aspect_ratio: safeText().optional(),
    duration: z.int().optional(),
    resolution: safeText().optional(),
    num_outputs: z.int().optional(),
    cost: z.number().optional(),
    payment: TaskPaymentSchema.optional().openapi({ description: 'How an x402-paid task was paid' }),
    replay_of: z.string().optional().openapi({
      description: 'The failed task this task re-runs (an operator replayed it); absent for an ordinary task',
      example: 'gen_3kXq9V2mPz8LwQ4rT7yN1a',
    }),
    served_by: z
      .string()
      .optional()
      .openapi({
        description:
          "Gateway extension: the provider that ran a completed task. The model id's own provider, or another one when " +
          'the model lists fallback routes and its own failed for a reason that was not the request (a 5xx, a timeout, ' +
          'throttling past the retry budget, the provider not configured). The price stays the quoted one',
        example: 'replicate',
      }),
    outputs_expire_at: z.iso
      .datetime()
      .optional()
      .openapi({
        description:
          'Gateway extension: when the outputs of a completed task are deleted, `completed_at` plus the ' +
          "server's output retention (OUTPUT_RETENTION_DAYS, default 30 days). From then on their links answer 410 " +
          '`output_expired`: download what you keep before it. Absent while the task runs, for a task without outputs, ' +
          'and where outputs are kept forever',
        example: '2026-12-25T12:40:03.120Z',
      }),
    usage: z
      .record(z.string(), z.number())
      .optional()
      .openapi({
        description:
          "Gateway extension: what the completed task counted in its model's pricing units, as it was charged " +
          '(`input_tokens` and `output_tokens` of a text model, `output_seconds`, `images`, `characters`, …)',
        example: { input_tokens: 42, output_tokens: 7 },
      }),
  })
  .openapi('GenerationStatusResponse');

/** `Prefer: wait=N` (RFC 7240): hold the answer up to N seconds (at most 60) for the task to end. */
const preferHeader = (answer: string) =>
  z
    .string()
    .optional()
    .openapi({
      param: { name: 'Prefer', in: 'header' },
      description:
        `Gateway extension (RFC 7240): \`wait=N\` holds the answer up to N seconds for the task to end; ${answer} ` +
        'N above 60 is taken as 60; other preferences, and a header this cannot read, are ignored (answered as without it).',
      example: 'wait=30',
    });

/** Spec: the retry key of POST /generations, 1 to 255 visible ASCII characters (RFC 9110 token-ish, no spaces). */
const idempotencyKeyText = () =>
  z
    .string()
    .min(1)
    .max(255)
    .regex(/^[\x21-\x7e]+$/, 'must be 1 to 255 visible ASCII characters');

export const CreateGenerationHeadersSchema = z.object({
  'Idempotency-Key': idempotencyKeyText()
    .optional()
    .openapi({
      param: { name: 'Idempotency-Key', in: 'header' },
      description:
        'Makes retries safe: the same key with the same body answers the task it first created (202, its admission); ' +
        'with another body, 409 `idempotency_key_reused`. 1 to 255 visible ASCII characters (0x21–0x7E), per account: ' +
        "any key of the account retrying it gets its task, except a key with a policy, which sees only its own (another key's is 409).",
      example: 'order-42',
    }),
  Prefer: preferHeader(
    'ended in time, the answer is 201 with the whole task (outputs or error) and `Preference-Applied: wait=N`, else the usual 202.',
  ),
});

export const GetGenerationHeadersSchema = z.object({
  Prefer: preferHeader(
    'ended in time (or already), the task carries `Preference-Applied: wait=N`; else the task as it is now, without it. Always 200.',
  ),
});

export const GenerationIdParamsSchema = taskIdParams('id');

export const PredictionIdParamsSchema = taskIdParams('taskId');

/** GET /generations: a page size, the cursor of the page before, and filters that must all match. */
export const GenerationHistoryQuerySchema = z.object({
  limit: z.coerce
    .number<string | number>()
    .int()
    .min(1)
    .max(100)
    .default(20)
    .openapi({ param: { name: 'limit', in: 'query' }, description: 'Tasks per page, 1 to 100', example: 20 }),
  cursor: z
    .string()
    .max(200)
    .refine((cursor) => decodeHistoryCursor(cursor) !== undefined, 'must be a next_cursor this endpoint answered')
    .optional()
    .openapi({
      param: { name: 'cursor', in: 'query' },
      description: "The previous page's `next_cursor` (opaque); absent: the first page. Use it with the same filters",
    }),
  status: TaskStatusSchema.optional().openapi({ param: { name: 'status', in: 'query' } }),
  type: GenerationTypeSchema.optional().openapi({ param: { name: 'type', in: 'query' } }),
  model: safeText(200)
    .min(1)
    .optional()
    .openapi({ param: { name: 'model', in: 'query' }, description: 'A model id', example: 'local/espeak' }),
  idempotency_key: idempotencyKeyText()
    .optional()
    .openapi({
      param: { name: 'idempotency_key', in: 'query' },
      description: 'The `Idempotency-Key` the task was created with',
    }),
  key_id: z
    .string()
    .regex(/^key_[0-9A-Za-z]{1,64}$/)
    .optional()
    .openapi({
      param: { name: 'key_id', in: 'query' },
      description: 'Only tasks created with this API key (its `id`)',
    }),
  created_after: z.iso
    .datetime({ offset: true })
    .optional()
    .openapi({
      param: { name: 'created_after', in: 'query' },
      description: 'Only tasks created after this instant (exclusive), ISO 8601',
      example: '2026-12-01T00:00:00Z',
    }),
  created_before: z.iso
    .datetime({ offset: true })
    .optional()
    .openapi({
      param: { name: 'created_before', in: 'query' },
      description: 'Only tasks created before this instant (exclusive), ISO 8601',
      example: '2026-12-02T00:00:00Z',
    }),
});

export const GenerationHistoryResponseSchema = z
  .object({
    generations: z.array(GenerationStatusResponseSchema).openapi({
      description: 'Newest first; each task exactly as GET /generations/{id} answers it',
    }),
    next_cursor: z.string().nullable().openapi({
      description: 'Pass as `cursor` for the next page; null on the last page',
    }),
  })
  .openapi('GenerationHistory');
