import { defineEndpoint } from '../endpoint.ts';
import { ModelsQuerySchema, ModelsResponseSchema } from '../schemas/models.schemas.ts';

export const modelEndpoints = [
  defineEndpoint({
    method: 'get',
    path: '/models',
    operationId: 'listModels',
    summary: 'List the model catalog',
    description: 'Models callers can use, filtered by generation type and provider. `cost` and `dollar_cost` are both the USD cost band of the model.',
    tags: ['Model catalog'],
    auth: 'none',
    request: { query: ModelsQuerySchema },
    success: { status: 200, description: 'The catalog', schema: ModelsResponseSchema },
    pendingUntil: 'the model catalog',
  }),
];
