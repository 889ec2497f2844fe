import type { RequestHandler } from 'express';
import { defineEndpoint } from '../endpoint.ts';
import {
  GenerationIdParamsSchema, GenerationQueuedResponseSchema, GenerationRequestSchema, GenerationStatusResponseSchema,
  PredictionIdParamsSchema,
} from '../schemas/generations.schemas.ts';

const tags = ['Generations'];

/** Spec §9: the alias is deprecated with a 60-day compatibility window. */
export const predictionsSunset = 'Wed, 29 Jul 2026 10:24:55 GMT';

export const deprecatedAliasHeaders: RequestHandler = (req, res, next) => {
  res.set({
    Deprecation: 'true',
    Sunset: predictionsSunset,
    Link: `</api/v1/generations/${encodeURIComponent(req.path.split('/')[1] ?? '')}>; rel="successor-version"`,
  });
  next();
};

export const generationEndpoints = [
  defineEndpoint({
    method: 'post',
    path: '/generations',
    operationId: 'createGeneration',
    summary: 'Create a generation task',
    description: 'Admits an asynchronous task after reserving its cost; answers 202 with a poll URL.',
    tags,
    auth: 'any_or_x402',
    request: { body: GenerationRequestSchema },
    success: { status: 202, description: 'The task is queued', schema: GenerationQueuedResponseSchema },
    errors: ['payment_required'],
    pendingUntil: 'generations',
  }),
  defineEndpoint({
    method: 'get',
    path: '/generations/{id}',
    operationId: 'getGeneration',
    summary: 'Read a generation task',
    tags,
    auth: 'any',
    request: { params: GenerationIdParamsSchema },
    success: { status: 200, description: 'The task', schema: GenerationStatusResponseSchema },
    errors: ['not_found'],
    pendingUntil: 'generations',
  }),
  defineEndpoint({
    method: 'get',
    path: '/predictions/{taskId}/result',
    operationId: 'getPredictionResult',
    summary: 'Read a generation task (deprecated alias)',
    description: `Deprecated alias of GET /generations/{id}; responses carry \`Deprecation: true\` and \`Sunset: ${predictionsSunset}\`.`,
    tags,
    auth: 'any',
    deprecated: true,
    request: { params: PredictionIdParamsSchema },
    success: {
      status: 200,
      description: 'The task',
      schema: GenerationStatusResponseSchema,
      headers: {
        Deprecation: { description: 'Always `true`', schema: { type: 'string' } },
        Sunset: { description: 'RFC 1123 date after which the alias may be removed', schema: { type: 'string' } },
      },
    },
    errors: ['not_found'],
    pendingUntil: 'generations',
  }),
];
