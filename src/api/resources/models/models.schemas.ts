import { GenerationTypeSchema } from '../../schemas/common.schemas.ts';
import { safeText, z } from '../../schemas/zod.ts';

export const ModelCostSchema = z.object({ min: z.number(), max: z.number() }).openapi('ModelCost', {
  description:
    'The least and the most one request can cost with this model, in USD, over every option it offers. `cost` and `dollar_cost` are the same band (the interface gives no other unit).',
});

export const ModelCapabilitiesSchema = z
  .object({
    aspect_ratios: z.array(z.string()).optional(),
    resolutions: z.array(z.string()).optional(),
    durations: z.array(z.int()).optional(),
    max_outputs: z.int().optional(),
    context_window_tokens: z.int().optional(),
    max_output_tokens: z.int().optional(),
    supports_vision: z.boolean().optional().openapi({
      description: 'Text models: false, the gateway sends text only (images go to image models)',
    }),
    supports_function_calling: z.boolean().optional().openapi({
      description: 'Text models: false, the gateway passes no tools through',
    }),
    supports_streaming: z.boolean().optional().openapi({
      description: 'Text models: false, tasks are asynchronous and the whole answer is stored as a text artifact',
    }),
    supports_json_mode: z.boolean().optional().openapi({
      description: 'Text models: false, the gateway passes no response format through',
    }),
    supports_sound: z
      .boolean()
      .optional()
      .openapi({ description: 'Extension: video models that can add generated sound (`sound: true`)' }),
    generate_types: z
      .array(z.enum(['Normal', 'LowPoly', 'Geometry']))
      .optional()
      .openapi({ description: "Extension: 3D models' `generate_type` options" }),
    input_modalities: z.array(z.string()).optional(),
    output_modalities: z.array(z.string()).optional(),
  })
  .openapi('ModelCapabilities');

export const ModelSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    provider: z.string(),
    provider_slug: z.string(),
    slug: z.string(),
    type: z.string().openapi({ description: 'A generation type; one model serves one type' }),
    description: z.string(),
    capabilities: ModelCapabilitiesSchema,
    cost: ModelCostSchema,
    dollar_cost: ModelCostSchema,
    supports_x402: z.boolean(),
    supports_webhook: z.boolean(),
    available: z.boolean().openapi({
      description:
        'Extension: whether this server can run the model now (its provider, or one of its fallback routes, is configured). Unavailable models are listed so callers see the whole catalog, but POST /generations refuses them.',
    }),
  })
  .openapi('Model');

export const ModelsQuerySchema = z.object({
  type: GenerationTypeSchema.optional().openapi({ description: 'Only models of this generation type' }),
  provider: safeText(100).min(1).optional().openapi({ description: 'Provider name or slug, case-insensitive' }),
});

export const ModelsResponseSchema = z
  .object({ models: z.array(ModelSchema), total: z.int() })
  .openapi('ModelsResponse');
