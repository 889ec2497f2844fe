import { type Catalog, type CatalogModel, providerOf } from '../../catalog/catalog.ts';
import { canRun } from '../../providers/registry.ts';
import type { Config } from '../../config.ts';
import { usdNumber } from '../../money.ts';
import { defineEndpoint } from '../endpoint.ts';
import { ModelsQuerySchema, ModelsResponseSchema } from '../schemas/models.schemas.ts';

export function presentModel(model: CatalogModel, config: Config) {
  const provider = providerOf(model);
  const band = { min: usdNumber(model.band.min), max: usdNumber(model.band.max) };
  return {
    id: model.id,
    name: model.name,
    provider: provider.name,
    provider_slug: provider.slug,
    slug: model.slug,
    type: model.type,
    description: model.description,
    capabilities: model.capabilities,
    cost: band,
    dollar_cost: band,
    supports_x402: model.supports_x402,
    supports_webhook: model.supports_webhook,
    available: canRun(config, model),
  };
}

/** Catalog order is the curated, stable order; filters only remove. */
export function filterModels(catalog: Catalog, filters: { type?: string; provider?: string }): CatalogModel[] {
  const provider = filters.provider?.toLowerCase();
  return catalog.models.filter(
    (model) =>
      (!filters.type || model.type === filters.type) &&
      (!provider || providerOf(model).name.toLowerCase() === provider || providerOf(model).slug === provider),
  );
}

export const modelEndpoints = [
  defineEndpoint({
    method: 'get',
    path: '/models',
    operationId: 'listModels',
    summary: 'List the model catalog',
    description:
      'Every model of the catalog in a stable order, filtered by generation `type` and by `provider` (name or slug, ' +
      'case-insensitive). `total` counts the models returned. `cost` and `dollar_cost` are both the USD band a request can cost. ' +
      'Models whose provider this server has not configured are listed with `available: false`.',
    tags: ['Model catalog'],
    auth: 'none',
    request: { query: ModelsQuerySchema },
    success: { status: 200, description: 'The catalog', schema: ModelsResponseSchema },
    handle: ({ query, ctx }) => {
      const models = filterModels(ctx.catalog, query).map((model) => presentModel(model, ctx.config));
      return { body: { models, total: models.length } };
    },
  }),
];
