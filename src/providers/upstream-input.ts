// A request's fields under the names an upstream model expects (catalog `upstream.parameters`).
import type { CatalogModel } from '../catalog/catalog.ts';
import type { GenerationRequest } from '../domain/generation-request.ts';

const omitted = new Set(['type', 'model', 'webhook_url', 'messages']);

/**
 * Our request fields under the model's upstream names; "2x"-style multipliers become numbers, and a list the model
 * takes one item of (catalog `inputs.single`, checked at admission) becomes that item.
 */
export function upstreamInput(request: GenerationRequest, model: CatalogModel): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  const single = new Set<string>(model.inputs.single);
  for (const [field, value] of Object.entries(request)) {
    if (value === undefined || omitted.has(field)) continue;
    const name = model.upstream.parameters[field] ?? field;
    if (single.has(field) && Array.isArray(value)) input[name] = value[0];
    else input[name] = typeof value === 'string' && /^\d+x$/.test(value) ? Number.parseInt(value, 10) : value;
  }
  return input;
}
