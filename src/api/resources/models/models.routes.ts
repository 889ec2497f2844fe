import { type CatalogModel, filterModels, providerListing } from '../../../catalog/catalog.ts';
import { x402Offered } from '../../../chain/settings.ts';
import type { Config } from '../../../config/config.ts';
import { usdNumber } from '../../../domain/money.ts';
import { canRunSomeRoute } from '../../../providers/registry.ts';
import { defineEndpoint } from '../../endpoint.ts';
import { ModelsQuerySchema, ModelsResponseSchema } from './models.schemas.ts';

/**
 * What a text model can do through this gateway, whatever the model can do elsewhere: POST /generations sends a
 * text prompt and stores the whole answer, with no image input, tools, stream or response format passed through.
 */
const textModelsThroughGateway = {
  supports_vision: false,
  supports_function_calling: false,
  supports_streaming: false,
  supports_json_mode: false,
} as const;

function presentModel(model: CatalogModel, config: Pick<Config, 'x402' | 'chains' | 'providers'>) {
  const provider = providerListing(model);
  const band = { min: usdNumber(model.band.min), max: usdNumber(model.band.max) };
  return {
    id: model.id,
    name: model.name,
    provider: provider.name,
    provider_slug: provider.slug,
    slug: model.slug,
    type: model.type,
    description: model.description,
    capabilities:
      model.type === 'text-to-text' ? { ...model.capabilities, ...textModelsThroughGateway } : model.capabilities,
    cost: band,
    dollar_cost: band,
    supports_x402: model.supports_x402 && x402Offered(config),
    supports_webhook: model.supports_webhook,
    available: canRunSomeRoute(config.providers, model),
  };
}

export const modelEndpoints = [
  defineEndpoint({
    method: 'get',
    path: '/models',
    operationId: 'listModels',
    summary: 'List the model catalog',
    description:
      'Every model of the catalog in a stable order, filtered by generation `type` and by `provider` (name or slug, case-insensitive). `total` counts the models returned. `cost` and `dollar_cost` are both the USD band a request can cost. Models whose provider this server has not configured are listed with `available: false`.',
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
