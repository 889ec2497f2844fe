// The shape of a catalog entry, validated at start: a bad entry stops the start naming the model and field.
import { z } from 'zod';
import { generateTypes, generationTypes } from '../domain/values.ts';

/** A price in USD as written in the catalog ("0.025"); turned into micro-USD by the pricing engine. */
const usd = z.string().regex(/^\d{1,6}(\.\d{1,6})?$/, 'expected a USD amount such as "0.025"');
const byResolution = z
  .record(z.string(), usd)
  .refine((tiers) => Object.keys(tiers).length > 0, 'expected at least one tier');

export const pricingRuleSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('flat'), usd }),
  z.object({ kind: z.literal('per_output'), usd }),
  z.object({ kind: z.literal('per_output_by_resolution'), usd_by_resolution: byResolution }),
  z.object({ kind: z.literal('per_second'), usd }),
  z.object({ kind: z.literal('per_second_by_resolution'), usd_by_resolution: byResolution }),
  z.object({
    kind: z.literal('per_1k_characters'),
    usd,
    /** Characters priced when the request carries no text yet (a quote). */
    assumed_characters: z.int().min(1),
    max_characters: z.int().min(1),
  }),
  z.object({
    kind: z.literal('per_minute_of_input'),
    usd,
    /** Minutes reserved when the request does not say how long its input is; settlement charges the real length. */
    reserved_minutes: z.int().min(1),
    max_minutes: z.int().min(1),
  }),
  z.object({
    kind: z.literal('per_token'),
    usd_per_million_input: usd,
    usd_per_million_output: usd,
    /** Output tokens reserved when the request gives no max_tokens. */
    default_max_tokens: z.int().min(1),
  }),
]);

export const surchargesSchema = z
  .object({
    /** Added per second of video when `sound` is requested. */
    sound_usd_per_second: usd.optional(),
    /** Added per generation for a `generate_type` other than Normal. */
    generate_type_usd: z.partialRecord(z.enum(generateTypes), usd).optional(),
  })
  .strict();

export const capabilitiesSchema = z
  .object({
    aspect_ratios: z.array(z.string()).min(1).optional(),
    resolutions: z.array(z.string()).min(1).optional(),
    durations: z.array(z.int().min(1)).min(1).optional(),
    max_outputs: z.int().min(1).optional(),
    context_window_tokens: z.int().min(1).optional(),
    max_output_tokens: z.int().min(1).optional(),
    supports_vision: z.boolean().optional(),
    supports_function_calling: z.boolean().optional(),
    supports_streaming: z.boolean().optional(),
    supports_json_mode: z.boolean().optional(),
    supports_sound: z.boolean().optional(),
    generate_types: z.array(z.enum(generateTypes)).min(1).optional(),
    input_modalities: z.array(z.string()).min(1),
    output_modalities: z.array(z.string()).min(1),
  })
  .strict();

/** The request fields that carry a media file whose length a price may depend on. */
export const measurableInputs = ['audio_url', 'video_url'] as const;
export type MeasurableInput = (typeof measurableInputs)[number];

export const providers = {
  fal: { name: 'fal', slug: 'fal' },
  replicate: { name: 'Replicate', slug: 'replicate' },
  openai: { name: 'OpenAI-compatible', slug: 'openai' },
  local: { name: 'Local', slug: 'local' },
} as const;
export type ProviderSlug = keyof typeof providers;

export const catalogEntrySchema = z
  .object({
    slug: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,62}$/, 'expected lowercase letters, digits, dots and dashes'),
    name: z.string().min(1),
    provider: z.enum(Object.keys(providers) as [ProviderSlug, ...ProviderSlug[]]),
    type: z.enum(generationTypes),
    description: z.string().min(20),
    capabilities: capabilitiesSchema,
    pricing: pricingRuleSchema,
    surcharges: surchargesSchema.optional(),
    supports_x402: z.boolean(),
    supports_webhook: z.boolean(),
    /**
     * Request fields whose media (audio or video) length sets the price: measured before admission, and the price
     * follows the measured length, not the declared `duration`. Required by a per-minute-of-input price.
     */
    measured_inputs: z.array(z.enum(measurableInputs)).min(1).optional(),
    timeout_seconds: z.int().min(10).max(7200),
    upstream: z
      .object({
        /** The provider's own model reference (fal endpoint id, Replicate model, OpenAI-compatible model name). */
        model: z.string().min(1),
        /** Our request field → the upstream's input field, where the names differ. */
        parameters: z.record(z.string(), z.string()).default({}),
      })
      .strict(),
  })
  .strict();

export type CatalogEntry = z.infer<typeof catalogEntrySchema>;
export type PricingRule = z.infer<typeof pricingRuleSchema>;
