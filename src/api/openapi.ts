// The OpenAPI 3.1 document, generated from the endpoint declarations and their zod schemas.
import { OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { type Endpoint, endpointErrorCodes } from './endpoint.ts';
import { type ErrorCode, errorCodes } from './errors.ts';
import { rateLimitHeaderDocs } from './rate-limit.ts';
import { ErrorSchema, PaymentRequiredErrorSchema } from './schemas/common.schemas.ts';
import { z } from './schemas/zod.ts';

export const apiVersion = '1.1.0';

const paymentRequiredHeaders = {
  'PAYMENT-REQUIRED': {
    description: 'x402 v2: the payment requirements of the body (`requirements`), as base64-encoded JSON',
    schema: { type: 'string' as const },
  },
};

function errorResponses(codes: ErrorCode[]): Record<number, ResponseConfig> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const { status } = errorCodes[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<number, ResponseConfig> = {};
  for (const [status, group] of byStatus) {
    responses[status] = {
      description: group.map((code) => `\`${code}\`: ${errorCodes[code].description}`).join(' '),
      content: { 'application/json': { schema: status === 402 ? PaymentRequiredErrorSchema : ErrorSchema } },
      ...(status === 402 && group.includes('payment_required') ? { headers: paymentRequiredHeaders } : {}),
      ...(group.includes('rate_limited') ? { headers: rateLimitHeaderDocs } : {}),
    };
  }
  return responses;
}

function describe(endpoint: Endpoint, x402: boolean): string {
  const pending = endpoint.pendingUntil
    ? `**Not implemented yet:** answers 501 \`not_implemented\` until ${endpoint.pendingUntil} lands.\n\n`
    : '';
  const paid = x402 && endpoint.keylessPaymentDescription ? `\n\n${endpoint.keylessPaymentDescription}` : '';
  return pending + (endpoint.description ?? endpoint.summary) + paid;
}

const bearer = [{ bearerAuth: [] }];
const securityOf = (x402: boolean): Record<Endpoint['auth'], Record<string, string[]>[]> => ({
  none: [],
  agent: bearer,
  developer: bearer,
  any: bearer,
  any_or_keyless_payment: x402 ? [...bearer, { x402: [] }] : bearer,
  any_or_task_token: [...bearer, { taskToken: [] }],
});

/** A body of bytes in one of `contentTypes`; multipart carries them as its `file` part. */
function rawRequestBody(contentTypes: string[]) {
  const bytes = z.string().openapi({ format: 'binary' });
  const content = Object.fromEntries(
    contentTypes.map((type) => [type, { schema: type === 'multipart/form-data' ? z.object({ file: bytes }) : bytes }]),
  );
  return { required: true, content };
}

/**
 * draft-payment-discovery's mark of a paid operation (`x-payment-info`), on each that takes x402 without a key: priced
 * per request (its 402 says how much), and answering a paymentless probe, whatever its body, 402 with x402's Bazaar
 * discovery (docs/x402.md).
 */
const paymentInfo = { price: { mode: 'dynamic', currency: 'USD' }, protocols: [{ x402: {} }] };

/** What only an x402 payment answers: left out of a server that takes no x402 payments. */
const x402Only = new Set<ErrorCode>(['payment_required', 'conflict']);

export interface OpenApiOptions {
  serverUrl?: string;
  /** Whether this server takes x402 payments (X402_ENABLED and a chain to be paid on): the scheme is declared then. */
  x402?: boolean;
}

export function buildOpenApiDocument(
  endpoints: Endpoint[],
  { serverUrl = '/api/v1', x402 = false }: OpenApiOptions = {},
) {
  const security = securityOf(x402);
  const registry = new OpenAPIRegistry();
  registry.register('Error', ErrorSchema);
  registry.register('PaymentRequiredError', PaymentRequiredErrorSchema);
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'API key: `rf_…` (agent), `sk_…` or legacy `vega_…` (developer).',
  });
  if (x402)
    registry.registerComponent('securitySchemes', 'x402', {
      type: 'apiKey',
      in: 'header',
      name: 'x-payment',
      description:
        'x402 payment payload, base64 (`X-PAYMENT`, or `PAYMENT-SIGNATURE` for v2 clients). POST /generations only, when ' +
        'the server enables x402 (`supports_x402` in GET /models): without an API key it answers 402 with the payment ' +
        'requirements in the body and the `PAYMENT-REQUIRED` header; a refused payment is 402 with the reason in ' +
        '`requirements.error`. A valid payment admits the task (202 with an `access_token`); the payment is settled ' +
        'on chain only once the outputs are stored, and never for a task that fails: `exact` the quoted price, `upto` ' +
        'what the task used (at most the quote).',
    });
  registry.registerComponent('securitySchemes', 'taskToken', {
    type: 'http',
    scheme: 'bearer',
    description:
      'The `access_token` (`tt_…`) of an x402-paid task: reads that task (GET /generations/{id}, its alias and its event stream) and may cancel it (POST /generations/{id}/cancel), nothing else.',
  });

  for (const endpoint of endpoints) {
    const { request, success } = endpoint;
    registry.registerPath({
      method: endpoint.method,
      path: endpoint.path,
      operationId: endpoint.operationId,
      summary: endpoint.summary,
      description: describe(endpoint, x402),
      tags: endpoint.tags,
      deprecated: endpoint.deprecated,
      security: security[endpoint.auth],
      ...(x402 && endpoint.auth === 'any_or_keyless_payment' && { 'x-payment-info': paymentInfo }),
      request: {
        ...(request?.body
          ? { body: { required: true, content: { 'application/json': { schema: request.body } } } }
          : {}),
        ...(endpoint.rawBody ? { body: rawRequestBody(endpoint.rawBody.contentTypes) } : {}),
        // zod-to-openapi wants objects for query and params; the endpoint declarations always give z.object.
        ...(request?.query ? { query: request.query as never } : {}),
        ...(request?.params ? { params: request.params as never } : {}),
        ...(request?.headers ? { headers: request.headers as never } : {}),
      },
      responses: {
        [success.status]: {
          description: success.description,
          headers: success.headers as ResponseConfig['headers'],
          content: {
            [success.eventStream ? 'text/event-stream' : 'application/json']: { schema: success.schema },
            ...(success.csv && { 'text/csv': { schema: z.string() } }),
          },
        },
        ...(success.alternative && {
          [success.alternative.status]: {
            description: success.alternative.description,
            headers: success.alternative.headers as ResponseConfig['headers'],
            ...(success.alternative.schema !== null && {
              content: { 'application/json': { schema: success.alternative.schema ?? success.schema } },
            }),
          },
        }),
        ...errorResponses(
          endpointErrorCodes(endpoint).filter(
            (code) => x402 || endpoint.auth !== 'any_or_keyless_payment' || !x402Only.has(code),
          ),
        ),
      },
    });
  }

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Generation Gateway API',
      version: apiVersion,
      description:
        'Asynchronous image, video, audio, 3D and text generation behind one API. ' +
        'Every error body is `{ "error": "<snake_case code>", "message": "…" }`.',
    },
    servers: [{ url: serverUrl }],
  });
}
