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
    // No supports_vision, _function_calling, _streaming or _json_mode: those are the gateway's to offer, not a
    // model's (it passes none of them through; GET /models states them for text models).
    supports_sound: z.boolean().optional(),
    generate_types: z.array(z.enum(generateTypes)).min(1).optional(),
    input_modalities: z.array(z.string()).min(1),
    output_modalities: z.array(z.string()).min(1),
  })
  .strict();

/** The request fields that carry a media file whose length a price may depend on. */
export const measurableInputs = ['audio_url', 'video_url'] as const;
export type MeasurableInput = (typeof measurableInputs)[number];

/** Request inputs a model can require beyond its generation type's own (src/generations/request.ts). */
export const modelInputFields = ['prompt', 'image_url', 'images', 'video_url', 'videos', 'audio_url'] as const;

export const modelInputsSchema = z
  .object({
    /** Fields this model cannot run without, e.g. an image editor's instruction: absent, admission answers 400. */
    required: z.array(z.enum(modelInputFields)).default([]),
    /** Lists this model takes exactly one item of; upstream receives that item alone (a string, not an array). */
    single: z.array(z.enum(['images', 'videos'])).default([]),
  })
  .strict();

/** Request fields whose values an upstream may spell its own way (catalog `upstream.values`). */
export const translatedFields = ['aspect_ratio', 'resolution', 'generate_type'] as const;
export type TranslatedField = (typeof translatedFields)[number];

/** "1280x720" in the catalog, `{ width, height }` as fal's image sizes are sent. */
const pixelSize = z
  .string()
  .regex(/^[1-9]\d{1,4}x[1-9]\d{1,4}$/, 'expected WIDTHxHEIGHT such as "1280x720"')
  .transform((size) => {
    const [width, height] = size.split('x').map(Number) as [number, number];
    return { width, height };
  });

export const upstreamSchema = z
  .object({
    /** The provider's own model reference (fal endpoint id, Replicate model, OpenAI-compatible model name). */
    model: z.string().min(1),
    /** Our request field → the upstream's input field, where the names differ. */
    parameters: z.record(z.string(), z.string()).default({}),
    /** Our value → the upstream's, per field, where the upstream names values its own way (FLUX's image_size). */
    values: z.partialRecord(z.enum(translatedFields), z.record(z.string(), z.string())).default({}),
    /** An upstream that takes one pixel size for resolution × aspect ratio: sent in `field` as { width, height }. */
    sizes: z
      .object({
        field: z.string().min(1),
        /** The resolution and aspect ratio of a request that leaves either out (the upstream's own default). */
        default: z.object({ resolution: z.string(), aspect_ratio: z.string() }).strict(),
        /** resolution → aspect ratio → "WIDTHxHEIGHT". */
        by_resolution: z.record(z.string(), z.record(z.string(), pixelSize)),
      })
      .strict()
      .optional(),
  })
  .strict();

/**
 * Another place the same model runs (the same open weights on fal and on Replicate): tried in order when the model's
 * own provider fails for a reason that is not the caller's. Only where the call runs changes: not the id, not the price.
 */
const fallbackRouteSchemaFor = (provider: z.ZodType<string>) =>
  z.object({ provider, upstream: upstreamSchema }).strict();
export type FallbackRoute = z.infer<ReturnType<typeof fallbackRouteSchemaFor>>;

/**
 * The schema of an entry whose providers are `providerSlugs`: the slugs of the provider list
 * (src/providers/provider-list.ts), which the catalog's loader passes, since the providers' adapters read this file.
 */
export const catalogEntrySchemaFor = (providerSlugs: readonly [string, ...string[]]) => {
  const provider = z.enum(providerSlugs);
  return z
    .object({
      slug: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,62}$/, 'expected lowercase letters, digits, dots and dashes'),
      name: z.string().min(1),
      provider,
      type: z.enum(generationTypes),
      description: z.string().min(20),
      capabilities: capabilitiesSchema,
      pricing: pricingRuleSchema,
      surcharges: surchargesSchema.optional(),
      inputs: modelInputsSchema.default({ required: [], single: [] }),
      supports_x402: z.boolean(),
      supports_webhook: z.boolean(),
      /**
       * Request fields whose media (audio or video) length sets the price: measured before admission, and the price
       * follows the measured length, not the declared `duration`. Required by a per-minute-of-input price.
       */
      measured_inputs: z.array(z.enum(measurableInputs)).min(1).optional(),
      timeout_seconds: z.int().min(10).max(7200),
      upstream: upstreamSchema,
      /** Alternative upstream routes, in the order they are tried after the model's own provider. */
      fallbacks: z.array(fallbackRouteSchemaFor(provider)).min(1).max(3).optional(),
    })
    .strict();
};

export type CatalogEntry = z.infer<ReturnType<typeof catalogEntrySchemaFor>>;

/** A catalog entry as loaded: the types that read a model need nothing of the loader. */
export interface CatalogModel extends CatalogEntry {
  /** `<provider>/<slug>`: the same model served by two providers has two ids. */
  id: string;
  band: { min: bigint; max: bigint };
}

export type PricingRule = z.infer<typeof pricingRuleSchema>;
