// A request's fields under the names an upstream model expects (catalog `upstream.parameters`).
import type { CatalogModel } from '../catalog/catalog.ts';
import type { GenerationRequest } from '../domain/generation-request.ts';

const omitted = new Set(['type', 'model', 'webhook_url', 'messages', 'sound']);

/**
 * Our request fields under the model's upstream names; "2x"-style multipliers become numbers, and a list the model
 * takes one item of (catalog `inputs.single`, checked at admission) becomes that item.
 */
export function upstreamInput(request: GenerationRequest, model: CatalogModel): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  const rename = (field: string) => model.upstream.parameters[field] ?? field;
  const single = new Set<string>(model.inputs.single);
  for (const [field, value] of Object.entries(request)) {
    if (value === undefined || omitted.has(field)) continue;
    if (single.has(field) && Array.isArray(value)) input[rename(field)] = value[0];
    else input[rename(field)] = typeof value === 'string' && /^\d+x$/.test(value) ? Number.parseInt(value, 10) : value;
  }
  // Priced as silent unless asked for, and an upstream may default to sound (fal's Veo 3 does): always say which.
  // A model without the choice is not sent the field at all.
  if (model.capabilities.supports_sound) input[rename('sound')] = request.sound ?? false;
  return input;
}
