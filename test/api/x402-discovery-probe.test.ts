// x402's Bazaar indexes a paid endpoint only when its paymentless probe (no key, no payment, often no body) is answered
// 402 with the discovery metadata, not 400 or 405 (x402 PR #2898). Every operation the OpenAPI document marks paid
// (`x-payment-info`) and every MCP tool marked paid (`_meta["x402/paid"]`) answers such a probe 402 whatever its
// input, priced for an example request; with an API key or a payment, a bad input is still 400, and with x402 off
// nothing is offered.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { validateDiscoveryExtension } from '@x402/extensions/bazaar';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDeveloperWithKey } from '../helpers/accounts.ts';
import { unreadChains, useAppWithDatabase } from '../helpers/app.ts';
import { freshClientAddress, type Server } from '../helpers/http.ts';
import { useMcpClients } from '../helpers/mcp-client.ts';

// Each probe from an address of its own (X-Forwarded-For, trusted from loopback): the valid ones count against it.
const on = useAppWithDatabase({
  config: { server: { trustProxy: 'loopback' }, x402: { enabled: true }, ...unreadChains },
});
const off = useAppWithDatabase({ config: { x402: { enabled: false }, ...unreadChains } });
const connect = useMcpClients(() => on.app.url);
const connectOff = useMcpClients(() => off.app.url);

interface Operation {
  method: string;
  path: string;
}

let paid: Operation[] = [];
let apiKey = '';
beforeAll(async () => {
  const document = (await (await fetch(`${on.app.url}/api/v1/openapi.json`)).json()) as {
    paths: Record<string, Record<string, Record<string, unknown>>>;
  };
  paid = Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([, operation]) => operation['x-payment-info'] !== undefined)
      .map(([method]) => ({ method: method.toUpperCase(), path })),
  );
  apiKey = (await createDeveloperWithKey(on.database.prisma)).apiKey.key;
});

/** A request as a probe sends it: raw bytes, any content type, no key unless given. */
async function probe(server: Server, { method, path }: Operation, body?: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.app.url}/api/v1${path}`, {
    method,
    headers: {
      'x-forwarded-for': freshClientAddress(),
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...headers,
    },
    body,
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
}

const json = (value: unknown) => JSON.stringify(value);

/** What an offer asks, leaving out what differs per answer (offers signed anew each time). */
const offered = (required: Record<string, any>) => ({
  resource: required.resource,
  accepts: required.accepts,
  bazaar: required.extensions.bazaar,
});

/** The probes a discovery service (or a careless client) sends, each with what its refusal names. */
const invalidProbes: { name: string; body?: string; headers?: Record<string, string>; names: RegExp }[] = [
  { name: 'no body at all', names: /^Invalid body: body: a JSON object is required\./ },
  { name: 'an empty JSON object', body: '{}', names: /^Invalid body: / },
  { name: 'a body of the wrong type (an array)', body: '[1, 2]', names: /^Invalid body: body: .*received array/ },
  { name: 'an unknown type', body: json({ type: 'nope', prompt: 'x' }), names: /^Invalid body: / },
  {
    name: 'an unknown model',
    body: json({ type: 'text-to-audio', model: 'nope/nope', prompt: 'x' }),
    names: /^Invalid body: /,
  },
  { name: 'a non-JSON body', body: 'not json', names: /^The request body is not valid JSON\./ },
  {
    name: 'another content type',
    body: 'hello',
    headers: { 'content-type': 'text/plain' },
    names: /^Content-Type must be application\/json, got text\/plain\./,
  },
];

/** A 402 as x402 v2 and v1 clients and Bazaar read it: requirements in the body and the header, with the discovery. */
function expectDiscoverable(answer: Awaited<ReturnType<typeof probe>>, { method }: Operation) {
  expect(answer.status, json(answer.body)).toBe(402);
  const { requirements } = answer.body;
  expect(answer.body).toMatchObject({ error: 'payment_required', x402Version: 1, accepts: expect.any(Array) });
  expect(decodePaymentRequiredHeader(answer.headers.get('payment-required') ?? '')).toEqual(requirements);
  const bazaar = requirements.extensions.bazaar;
  expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true });
  expect(bazaar.info.input).toMatchObject({ type: 'http', method, bodyType: 'json', body: expect.any(Object) });
  expect(bazaar.schema.properties.input.properties.body).toMatchObject({ type: 'object', required: expect.any(Array) });
  expect(bazaar.schema.properties.output).toMatchObject({ type: 'object' });
  expect(bazaar.info.output.example).toEqual(expect.any(Object));
  return requirements;
}

describe('the OpenAPI document', () => {
  it('marks the paid operations with x-payment-info: POST /generations and the top-ups', () => {
    expect(paid).toEqual(
      expect.arrayContaining([
        { method: 'POST', path: '/generations' },
        { method: 'POST', path: '/agents/topup' },
        { method: 'POST', path: '/account/topup' },
      ]),
    );
  });
});

describe('a paymentless probe of every paid operation, x402 on', () => {
  it.each(invalidProbes)('answers $name 402 with the Bazaar discovery, priced for the example', async (sent) => {
    for (const operation of paid) {
      const answer = await probe(on, operation, sent.body, sent.headers);
      const requirements = expectDiscoverable(answer, operation);
      expect(answer.body.message).toMatch(sent.names);
      expect(answer.body.message).toContain(`are those of an example request (${requirements.resource.description})`);
      // The example is a valid request: sent as it is, it is asked exactly the same price and requirements.
      const example = await probe(on, operation, json(requirements.extensions.bazaar.info.input.body));
      expect(offered(expectDiscoverable(example, operation))).toEqual(offered(requirements));
      expect(example.body.message).toMatch(/(pay it|Pay \$[\d.]+) with x402/);
      expect(example.body.cost).toBe(answer.body.cost);
    }
  });

  it('prices the example as the cheapest request a prompt alone makes here (local/espeak)', async () => {
    const { body } = await probe(on, { method: 'POST', path: '/generations' }, '{}');
    expect(body.requirements.extensions.bazaar.info.input.body).toEqual({
      type: 'text-to-audio',
      model: 'local/espeak',
      prompt: 'A lighthouse at dawn',
    });
    expect(body.requirements.resource.description).toMatch(/\(local\/espeak\)$/);
  });

  it('still answers 400 naming the field to a caller with an API key: nothing is offered or charged', async () => {
    for (const operation of paid) {
      const answer = await probe(on, operation, json({ type: 'nope', prompt: 'x' }), {
        authorization: `Bearer ${apiKey}`,
      });
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({
        error: 'validation_error',
        message: expect.stringMatching(/^Invalid body: (type|amount): /),
      });
    }
  });

  it('still answers 400 to a caller with a payment: it meant to pay for this very request', async () => {
    for (const operation of paid) {
      for (const header of ['PAYMENT-SIGNATURE', 'X-PAYMENT']) {
        const answer = await probe(on, operation, '{}', { [header]: 'bm90IGEgcGF5bWVudA==' });
        expect(answer.status).toBe(400);
        expect(answer.body.error).toBe('validation_error');
        const unparsed = await probe(on, operation, 'not json', { [header]: 'bm90IGEgcGF5bWVudA==' });
        expect(unparsed.status).toBe(400);
        expect(unparsed.body.error).toBe('invalid_json');
      }
    }
  });
});

describe('with x402 off', () => {
  it('marks nothing paid, and a keyless probe is 401 as before', async () => {
    const document = (await (await fetch(`${off.app.url}/api/v1/openapi.json`)).json()) as { paths: object };
    expect(json(document.paths)).not.toContain('x-payment-info');
    for (const operation of paid) {
      for (const body of [undefined, '{}']) {
        const answer = await probe(off, operation, body);
        expect(answer.status).toBe(401);
        expect(answer.body.error).toBe('unauthorized');
      }
    }
  });
});

describe('a paymentless call of every paid MCP tool, x402 on', () => {
  const requirementsOf = (result: CallToolResult) => {
    expect(result.isError).toBe(true);
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent);
    const required = result.structuredContent as Record<string, any>;
    expect(required).toMatchObject({ x402Version: 2, accepts: expect.arrayContaining([expect.any(Object)]) });
    const bazaar = required.extensions.bazaar;
    expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true });
    expect(bazaar.info.input).toMatchObject({ type: 'http', method: 'POST', body: expect.any(Object) });
    expect(bazaar.schema.properties).toMatchObject({ input: expect.any(Object), output: expect.any(Object) });
    return required;
  };

  it('answers empty or invalid arguments with the payment requirements of the example, as a valid call gets them', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const paidTools = tools.filter((tool) => tool._meta?.['x402/paid'] === true).map((tool) => tool.name);
    expect(paidTools).toEqual(expect.arrayContaining(['generate', 'top_up']));
    for (const name of paidTools) {
      for (const args of [{}, { type: 'nope' }, { type: 'text-to-audio', model: 'nope/nope', prompt: 'x' }]) {
        const required = requirementsOf((await client.callTool({ name, arguments: args })) as CallToolResult);
        const example = required.extensions.bazaar.info.input.body as Record<string, unknown>;
        const valid = (await client.callTool({ name, arguments: example })) as CallToolResult;
        expect(offered(requirementsOf(valid))).toEqual(offered(required));
      }
    }
  });

  it('lists no tool as paid where x402 is off', async () => {
    const { tools } = await (await connectOff()).listTools();
    expect(tools.filter((tool) => tool._meta?.['x402/paid'] !== undefined)).toEqual([]);
  });
});
