// A request's fields under the names and values an upstream model expects (catalog `upstream`).
import type { CatalogModel, TranslatedField } from '../catalog/catalog.schema.ts';
import type { GenerationRequest } from '../domain/generation-request.ts';

const omitted = new Set(['type', 'model', 'webhook_url', 'messages', 'sound']);

/**
 * Our request fields under the model's upstream names and values (`upstream.parameters`, `upstream.values`);
 * "2x"-style multipliers become numbers, and a list the model takes one item of (catalog `inputs.single`, checked at
 * admission) becomes that item. A model with `upstream.sizes` gets resolution × aspect ratio as one pixel size.
 */
export function upstreamInput(request: GenerationRequest, model: CatalogModel): Record<string, unknown> {
  const { parameters, values, sizes } = model.upstream;
  const input: Record<string, unknown> = {};
  const rename = (field: string) => parameters[field] ?? field;
  const single = new Set<string>(model.inputs.single);
  const sized = new Set<string>(sizes ? ['resolution', 'aspect_ratio'] : []);
  for (const [field, value] of Object.entries(request)) {
    if (value === undefined || omitted.has(field) || sized.has(field)) continue;
    // The catalog translates every value the model offers, and admission lets no other value through.
    const table = values[field as TranslatedField];
    if (table && typeof value === 'string' && Object.hasOwn(table, value)) input[rename(field)] = table[value];
    else if (single.has(field) && Array.isArray(value)) input[rename(field)] = value[0];
    else input[rename(field)] = typeof value === 'string' && /^\d+x$/.test(value) ? Number.parseInt(value, 10) : value;
  }
  // Always a size, as with sound: the request's, or the default's where it leaves resolution or aspect ratio out.
  if (sizes) {
    const resolution = request.resolution ?? sizes.default.resolution;
    input[sizes.field] = sizes.by_resolution[resolution]![request.aspect_ratio ?? sizes.default.aspect_ratio];
  }
  // Priced as silent unless asked for, and an upstream may default to sound (fal's Veo 3 does): always say which.
  // A model without the choice is not sent the field at all.
  if (model.capabilities.supports_sound) input[rename('sound')] = request.sound ?? false;
  return input;
}
