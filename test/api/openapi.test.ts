import { beforeAll, describe, expect, it } from 'vitest';
import { errorCodes } from '../../src/api/errors.ts';
import { buildOpenApiDocument } from '../../src/api/openapi.ts';
import { httpUrl } from '../../src/api/schemas/common.schemas.ts';
import { apiEndpoints } from '../../src/api/resources/index.ts';
import { createDeveloperWithKey } from '../helpers/accounts.ts';
import { useAppWithDatabase } from '../helpers/app.ts';

// Spec §4: every endpoint of the interface, with its success status.
const specEndpoints = [
  ['get', '/models', '200'],
  ['post', '/agents/register', '201'],
  ['post', '/agents/deposit', '200'],
  ['get', '/agents/balance', '200'],
  ['get', '/account/balance', '200'],
  ['post', '/agents/quote', '200'],
  ['patch', '/agents/webhook', '200'],
  ['post', '/generations', '202'],
  ['get', '/generations/{id}', '200'],
  ['get', '/predictions/{taskId}/result', '200'],
] as const;
// Documented additions of this gateway, beyond the spec.
const extensionEndpoints = [
  ['get', '/account/webhook-secret', '200'],
  ['post', '/agents/topup', '200'],
  ['post', '/account/topup', '200'],
  ['post', '/wallets/sign-in', '200'],
  ['post', '/agents/sign-in', '201'],
  ['get', '/generations', '200'],
  ['post', '/generations/{id}/cancel', '200'],
  ['get', '/generations/{id}/receipt', '200'],
  ['post', '/uploads', '201'],
  ['get', '/uploads', '200'],
  ['get', '/uploads/{id}', '200'],
  ['delete', '/uploads/{id}', '200'],
  ['get', '/generations/{id}/events', '200'],
  ['get', '/events', '200'],
  ['post', '/keys', '201'],
  ['get', '/keys', '200'],
  ['get', '/keys/current', '200'],
  ['get', '/keys/{id}', '200'],
  ['patch', '/keys/{id}', '200'],
  ['delete', '/keys/{id}', '200'],
  ['get', '/oauth/consent', '200'],
  ['post', '/oauth/consent', '200'],
  ['get', '/usage', '200'],
  ['get', '/webhooks', '200'],
  ['put', '/webhooks', '200'],
  ['get', '/webhooks/deliveries', '200'],
  ['post', '/webhooks/deliveries/{id}/redeliver', '202'],
] as const;
const allEndpoints = [...specEndpoints, ...extensionEndpoints];

const stack = useAppWithDatabase();
let document: any;
beforeAll(async () => {
  document = await (await fetch(`${stack.app.url}/api/v1/openapi.json`)).json();
});

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1 at interface version 1.1.0', () => {
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(document.info.version).toBe('1.1.0');
    expect(document.servers).toEqual([{ url: '/api/v1' }]);
  });

  it('has exactly the ten paths of the spec, and its documented extensions', () => {
    expect(Object.keys(document.paths).sort()).toEqual([...new Set(allEndpoints.map(([, path]) => path))].sort());
  });

  it.each(allEndpoints)('%s %s answers %s and documents its errors with the Error shape', (method, path, status) => {
    const operation = document.paths[path][method];
    expect(operation, `${method} ${path}`).toBeDefined();
    expect(operation.responses[status]).toBeDefined();
    for (const [code, response] of Object.entries<any>(operation.responses)) {
      if (code === status || code.startsWith('2')) continue;
      expect(response.content['application/json'].schema.$ref).toMatch(
        /#\/components\/schemas\/(Error|PaymentRequiredError)$/,
      );
    }
    expect(operation.responses['500']).toBeDefined();
  });

  it('says which endpoints are not implemented yet (conventions.test.ts checks they answer 501)', () => {
    const pending = specEndpoints.filter(([method, path]) => document.paths[path][method].responses['501']);
    for (const [method, path] of pending)
      expect(document.paths[path][method].description).toMatch(/^\*\*Not implemented yet:\*\*/);
    for (const [method, path] of specEndpoints.filter((endpoint) => !pending.includes(endpoint))) {
      expect(document.paths[path][method].description).not.toMatch(/Not implemented/);
    }
    expect(pending).toEqual([]);
  });

  it('documents the cancel: 200 once it landed, 202 while under way (the task either way), task tokens allowed', () => {
    const cancel = document.paths['/generations/{id}/cancel'].post;
    for (const status of ['200', '202'])
      expect(cancel.responses[status].content['application/json'].schema).toEqual(
        document.paths['/generations/{id}'].get.responses['200'].content['application/json'].schema,
      );
    expect(Object.keys(cancel.responses)).toEqual(expect.arrayContaining(['404', '409']));
    expect(cancel.security).toEqual([{ bearerAuth: [] }, { taskToken: [] }]);
  });

  it('documents the event streams as text/event-stream, one event per schema, with Last-Event-ID and task tokens', () => {
    const task = document.paths['/generations/{id}/events'].get;
    const account = document.paths['/events'].get;
    for (const stream of [task, account]) {
      expect(Object.keys(stream.responses['200'].content)).toEqual(['text/event-stream']);
      expect(stream.responses['200'].content['text/event-stream'].schema.$ref).toBe(
        '#/components/schemas/TaskStreamEvent',
      );
      expect(stream.parameters).toEqual(
        expect.arrayContaining([expect.objectContaining({ in: 'header', name: 'Last-Event-ID' })]),
      );
    }
    expect(document.components.schemas.TaskStreamEvent.properties.event.enum).toEqual([
      'queued',
      'processing',
      'progress',
      'completed',
      'failed',
      'key.budget_threshold',
    ]);
    expect(task.responses['204'].content).toBeUndefined();
    expect(Object.keys(task.responses)).toEqual(expect.arrayContaining(['401', '404']));
    expect(task.security).toEqual([{ bearerAuth: [] }, { taskToken: [] }]);
    expect(account.security).toEqual([{ bearerAuth: [] }]);
  });

  it('documents the upload body: the media types it takes as bytes, or multipart with a file part', () => {
    const create = document.paths['/uploads'].post;
    const content = create.requestBody.content;
    expect(Object.keys(content)).toEqual(expect.arrayContaining(['image/png', 'audio/wav', 'video/mp4']));
    expect(Object.keys(content)).not.toContain('image/svg+xml');
    expect(content['image/png'].schema).toEqual({ type: 'string', format: 'binary' });
    expect(content['multipart/form-data'].schema.properties.file).toEqual({ type: 'string', format: 'binary' });
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '413']));
    expect(create.responses['413'].description).toContain('upload_quota_exceeded');
  });

  it("documents when a task's outputs expire, and the 410 their links answer then", () => {
    const task = document.components.schemas.GenerationStatusResponse;
    expect(task.properties.outputs_expire_at).toMatchObject({ type: 'string', format: 'date-time' });
    expect(task.properties.outputs_expire_at.description).toMatch(/OUTPUT_RETENTION_DAYS.*410 `output_expired`/);
    expect(task.required).not.toContain('outputs_expire_at');
    expect(errorCodes.output_expired.status).toBe(410);
    expect(document.paths['/generations/{id}'].get.description).toContain('`outputs_expire_at`');
  });

  it('declares bearer auth, none on registration and the catalog, and no x402 where x402 is off', () => {
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.paths['/models'].get.security).toEqual([]);
    expect(document.paths['/agents/register'].post.security).toEqual([]);
    expect(document.paths['/agents/balance'].get.security).toEqual([{ bearerAuth: [] }]);
    // This app runs with the default X402_ENABLED=false: x402 is not offered, so not declared.
    const create = document.paths['/generations'].post;
    expect(create.security).toEqual([{ bearerAuth: [] }]);
    expect(document.components.securitySchemes.x402).toBeUndefined();
    // 429 is the account's rate limit here (x402's payer limit only joins it where x402 is on).
    expect(create.responses['429'].description).toContain('`rate_limited`');
    expect(Object.keys(create.responses['429'].headers)).toEqual([
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'RateLimit-Policy',
      'Retry-After',
    ]);
    expect(create.responses['402'].description).toContain('`insufficient_balance`');
    expect(create.responses['402'].description).not.toContain('`payment_required`');
    expect(create.description).not.toMatch(/PAYMENT-SIGNATURE/);
  });

  it('declares x402 on POST /generations and the top-ups only, where the server takes x402 payments', () => {
    const paid = buildOpenApiDocument(apiEndpoints, { x402: true }) as any;
    expect(paid.components.securitySchemes.x402).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-payment' });
    const create = paid.paths['/generations'].post;
    expect(create.security).toEqual([{ bearerAuth: [] }, { x402: [] }]);
    expect(create.responses['402'].description).toContain('`payment_required`');
    expect(create.responses['402'].headers['PAYMENT-REQUIRED']).toBeDefined();
    expect(create.responses['429'].description).toContain('`rate_limited`');
    expect(create.description).toMatch(/PAYMENT-SIGNATURE/);
    const withX402 = Object.entries<any>(paid.paths).flatMap(([path, operations]) =>
      Object.entries<any>(operations)
        .filter(([, operation]) => JSON.stringify(operation.security).includes('x402'))
        .map(([method]) => `${method} ${path}`),
    );
    expect([...withX402].sort()).toEqual(['post /account/topup', 'post /agents/topup', 'post /generations']);
    // The same operations carry draft-payment-discovery's mark of a paid operation; none where x402 is off.
    const marked = Object.entries<any>(paid.paths).flatMap(([path, operations]) =>
      Object.entries<any>(operations)
        .filter(([, operation]) => operation['x-payment-info'])
        .map(([method]) => `${method} ${path}`),
    );
    expect(marked).toEqual(withX402);
    expect(create['x-payment-info']).toEqual({
      price: { mode: 'dynamic', currency: 'USD' },
      protocols: [{ x402: {} }],
    });
    expect(JSON.stringify(document.paths)).not.toContain('x-payment-info');
  });

  it('declares the Idempotency-Key header of POST /generations with its rule', () => {
    const parameters = document.paths['/generations'].post.parameters;
    expect(parameters).toEqual([
      expect.objectContaining({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        schema: expect.objectContaining({ type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' }),
      }),
      expect.objectContaining({ name: 'Prefer' }),
    ]);
    expect(parameters[0].description).toMatch(/1 to 255 visible ASCII/);
  });

  it('declares Prefer: wait on POST /generations (201 with the whole task) and GET /generations/{id}', () => {
    const create = document.paths['/generations'].post;
    const read = document.paths['/generations/{id}'].get;
    for (const operation of [create, read]) {
      const prefer = operation.parameters.find((parameter: any) => parameter.name === 'Prefer');
      expect(prefer).toMatchObject({ in: 'header', required: false, schema: { type: 'string' } });
      expect(prefer.description).toMatch(/wait=N/);
    }
    expect(create.responses['202'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/GenerationQueuedResponse',
    });
    expect(create.responses['201'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/GenerationStatusResponse',
    });
    expect(Object.keys(create.responses['201'].headers)).toEqual(['Preference-Applied', 'Location']);
    expect(read.responses['200'].headers['Preference-Applied']).toBeDefined();
  });

  it('declares the bounds of every integer of a request', () => {
    const request = document.components.schemas.GenerationRequest.properties;
    const int32 = { type: 'integer', minimum: 1, maximum: 2_147_483_647 };
    for (const field of ['max_tokens', 'duration', 'num_outputs']) expect(request[field]).toMatchObject(int32);
    expect(request.seed).toMatchObject({
      type: 'integer',
      minimum: Number.MIN_SAFE_INTEGER,
      maximum: Number.MAX_SAFE_INTEGER,
    });
    expect(document.components.schemas.AgentQuoteRequest.properties.num_outputs).toMatchObject(int32);
    const unbounded: string[] = [];
    const walk = (node: any, path: string) => {
      if (!node || typeof node !== 'object') return;
      if (node.type === 'integer' && (node.minimum === undefined || node.maximum === undefined)) unbounded.push(path);
      for (const [key, value] of Object.entries(node)) walk(value, `${path}/${key}`);
    };
    walk(document.components.schemas.GenerationRequest, 'GenerationRequest');
    walk(document.components.schemas.AgentQuoteRequest, 'AgentQuoteRequest');
    walk(document.paths['/generations'].post.requestBody, 'POST /generations');
    expect(unbounded).toEqual([]);
  });

  it("documents what a text model's quote assumes", () => {
    const quote = document.paths['/agents/quote'].post.description;
    expect(quote).toMatch(/assumed_characters/);
    expect(quote).toMatch(/default `max_tokens`/);
    expect(quote).toMatch(/reserved minutes/);
    expect(document.components.schemas.AgentQuoteResponse.properties.breakdown.description).toMatch(
      /characters_assumed/,
    );
    expect(quote).toMatch(/assumed_input_tokens/);
    expect(document.components.schemas.AgentQuoteResponse.properties.assumed_input_tokens.description).toMatch(
      /one per UTF-8 byte/,
    );
  });

  it('generates request schemas from the validating zod schemas', () => {
    const register = document.components.schemas.AgentRegisterRequest;
    expect(register.required).toEqual(['agent_name']);
    expect(register.properties.agent_name).toMatchObject({ minLength: 3, maxLength: 50 });
    expect(document.components.schemas.AgentDepositRequest.properties.tx_hash.pattern).toBe('^0x[a-fA-F0-9]{64}$');
    expect(document.components.schemas.GenerationRequest.properties.max_tokens.minimum).toBe(1);
    // The priced options a quote takes, a generation takes too.
    const generation = document.components.schemas.GenerationRequest.properties;
    expect(generation.sound).toMatchObject({ type: 'boolean' });
    expect(generation.generate_type.enum).toEqual(['Normal', 'LowPoly', 'Geometry']);
    expect(document.paths['/predictions/{taskId}/result'].get.deprecated).toBe(true);
  });

  it('says webhook_url and the input URLs take only http(s) with a host, as the server does', () => {
    const schemas = document.components.schemas;
    const urls = [
      schemas.GenerationRequest.properties.webhook_url,
      schemas.AgentRegisterRequest.properties.webhook_url,
      schemas.AgentWebhookRequest.properties.webhook_url,
      schemas.GenerationRequest.properties.image_url,
    ];
    const taken = ['https://hooks.example.com/gen', 'http://127.0.0.1:8080/x?y=1', 'HTTPS://[::1]:9/', 'http://a?b'];
    const refused = ['ftp://example.com/x', 'file:///etc/passwd', 'javascript:alert(1)', 'HTTP://', 'https://u:p@a/'];
    for (const url of urls) {
      expect(url).toMatchObject({ format: 'uri', pattern: expect.any(String) });
      const pattern = new RegExp(url.pattern);
      for (const sample of taken)
        expect([pattern.test(sample), httpUrl.safeParse(sample).success], sample).toEqual([true, true]);
      for (const sample of refused)
        expect([pattern.test(sample), httpUrl.safeParse(sample).success], sample).toEqual([false, false]);
    }
  });

  it('documents every error code it can answer', () => {
    const described = JSON.stringify(document.paths);
    for (const code of [
      'validation_error',
      'unauthorized',
      'forbidden',
      'internal_error',
      'insufficient_balance',
      'idempotency_key_reused',
      'registration_capped',
      'invalid_webhook_url',
      'deposit_not_found',
      'deposit_reverted',
      'deposit_wrong_recipient',
      'deposit_wrong_token',
      'deposit_already_credited',
    ]) {
      expect(errorCodes).toHaveProperty(code);
      expect(described).toContain(`\`${code}\``);
    }
  });
});

describe('Idempotency-Key', () => {
  it.each(['', 'tab\tinside', 'with space', 'x'.repeat(256), 'caf\u00e9'])(
    'refuses %j with 400 naming the rule',
    async (key) => {
      const developer = await createDeveloperWithKey(stack.database.prisma);
      const response = await fetch(`${stack.app.url}/api/v1/generations`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${developer.apiKey.key}`,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        body: JSON.stringify({ type: 'text-to-audio', model: 'local/espeak', prompt: 'hi' }),
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: 'validation_error',
        message: expect.stringMatching(/^Invalid header: Idempotency-Key: /),
      });
    },
  );
});

describe('/docs', () => {
  it('serves an API reference whose scripts come from this server, not a CDN', async () => {
    const response = await fetch(`${stack.app.url}/docs`);
    expect(response.status).toBe(200);
    const html = await response.text();
    const sources = [...html.matchAll(/<(?:script|link)[^>]+(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(sources).toContain('/docs/assets/standalone.js');
    expect(sources.filter((source) => /^(https?:)?\/\//.test(source))).toEqual([]);
    expect(html).toContain('"url": "/api/v1/openapi.json"');

    const script = await fetch(`${stack.app.url}/docs/assets/standalone.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
  });
});
