// Every string field of every endpoint's request, read from the endpoints' own schemas, is refused with 400 naming
// the field when it holds what PostgreSQL cannot store: a NUL, or an unpaired UTF-16 surrogate.
import { beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { Endpoint } from '../../src/api/endpoint.ts';
import { apiEndpoints } from '../../src/api/resources/index.ts';
import { createAgentWithKey, createDeveloperWithKey } from '../helpers/accounts.ts';
import { unreadChains, useAppWithDatabase } from '../helpers/app.ts';
import { call } from '../helpers/http.ts';

const stack = useAppWithDatabase({
  config: { server: { trustProxy: 'loopback' }, x402: { enabled: true }, ...unreadChains },
});
const keys = { agent: '', developer: '' };
beforeAll(async () => {
  keys.agent = (await createAgentWithKey(stack.database.prisma)).apiKey.key;
  keys.developer = (await createDeveloperWithKey(stack.database.prisma)).apiKey.key;
});

type Path = (string | number)[];
interface Leaf {
  path: Path;
  /** Which member of a top-level union (the two layouts of POST /generations) the field belongs to. */
  branch: number;
}

/** The paths of every string (and string enumeration) in a request schema; array items as index 0. */
function stringLeaves(schema: z.ZodType, path: Path = [], branch = 0): Leaf[] {
  const def = schema._zod.def as unknown as Record<string, any> & { type: string };
  switch (def.type) {
    case 'string':
    case 'enum':
      return [{ path, branch }];
    case 'optional':
    case 'nullable':
    case 'default':
      return stringLeaves(def.innerType, path, branch);
    case 'array':
      return stringLeaves(def.element, [...path, 0], branch);
    case 'object':
      return Object.entries(def.shape as Record<string, z.ZodType>).flatMap(([key, value]) =>
        stringLeaves(value, [...path, key], branch),
      );
    case 'union':
      return (def.options as z.ZodType[]).flatMap((option, index) => stringLeaves(option, path, index));
    default:
      return [];
  }
}

/** A valid body per endpoint (per union member), so the field under test is the only thing wrong. */
const validBodies: Record<string, Record<string, unknown>[]> = {
  registerAgent: [{ agent_name: 'Ada' }],
  signInAgent: [{}],
  creditDeposit: [{ chain: 'base', tx_hash: `0x${'a'.repeat(64)}` }],
  quoteGeneration: [{ type: 'text-to-image', model: 'fal/flux-schnell' }],
  updateAgentWebhook: [{ webhook_url: 'https://hooks.example/a' }],
  setAccountWebhook: [{ webhook_url: 'https://hooks.example/a', events: ['generation.completed'] }],
  createKey: [{ name: 'ci' }],
  updateKey: [{ name: 'ci' }],
  answerOAuthConsent: [{ request: 'eyJ.eyJ.sig', approve: true }],
  createGeneration: [
    { model: 'openai/gpt-4o-mini', input: { prompt: 'hello', messages: [{ role: 'user', content: 'hi' }] } },
    { type: 'text-to-text', model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
  ],
};

function withValue(base: Record<string, unknown>, path: Path, value: string): Record<string, unknown> {
  const copy = structuredClone(base);
  let at: any = copy;
  for (const [index, key] of path.entries()) {
    if (index === path.length - 1) at[key] = value;
    else at = at[key] ??= typeof path[index + 1] === 'number' ? [{}] : {};
  }
  return copy;
}

const keyFor = (endpoint: Endpoint) => (endpoint.auth === 'agent' ? keys.agent : keys.developer);

interface Case {
  name: string;
  field: string;
  /** The code the endpoint answers for an invalid body (PATCH /agents/webhook: invalid_webhook_url). */
  code: string;
  request: (bad: string) => { method: string; path: string; body?: unknown; key?: string };
}

function casesOf(endpoint: Endpoint): Case[] {
  const { body, query, params } = endpoint.request ?? {};
  const name = (field: string) => `${endpoint.method.toUpperCase()} ${endpoint.path} ${field}`;
  const key = endpoint.auth === 'none' ? undefined : () => keyFor(endpoint);
  const sample = `gen_${'a'.repeat(22)}`;
  const code = endpoint.validationErrorCode ?? 'validation_error';
  const layouts = (validBodies[endpoint.operationId] ?? []).length > 1;
  const pathWith = (param?: string, value?: string) =>
    endpoint.path.replace(/\{(\w+)\}/g, (_, name: string) => (name === param ? value! : sample));
  return [
    ...(body ? stringLeaves(body) : []).map(({ path, branch }) => ({
      name: name(`${path.join('.')}${layouts ? ` (layout ${branch + 1})` : ''}`),
      field: path.join('.'),
      code,
      request: (bad: string) => ({
        method: endpoint.method.toUpperCase(),
        path: endpoint.path,
        body: withValue(validBodies[endpoint.operationId]![branch]!, path, bad),
        key: key?.(),
      }),
    })),
    ...(query ? stringLeaves(query) : []).map(({ path }) => ({
      name: name(`?${path.join('.')}`),
      field: path.join('.'),
      code: 'validation_error',
      request: (bad: string) => ({
        method: endpoint.method.toUpperCase(),
        path: `${pathWith()}?${path[0]}=${encodeURIComponent(bad)}`,
        key: key?.(),
      }),
    })),
    ...(params ? stringLeaves(params) : []).map(({ path }) => ({
      name: name(`{${path.join('.')}}`),
      field: path.join('.'),
      code: 'validation_error',
      request: (bad: string) => ({
        method: endpoint.method.toUpperCase(),
        path: pathWith(String(path[0]), encodeURIComponent(bad)),
        // A body, where the endpoint takes one, so the path's field is the only thing wrong.
        body: validBodies[endpoint.operationId]?.[0],
        key: key?.(),
      }),
    })),
  ];
}

const cases = apiEndpoints.flatMap(casesOf);
const bodyCases = cases.filter((entry) => !entry.name.includes('?') && !entry.name.includes('{'));

const expectRefused = (response: { status: number; body: any }, { field, code }: Case) => {
  expect(response.status).toBe(400);
  expect(response.body.error).toBe(code);
  expect(response.body.message).toMatch(new RegExp(`(: |; )${field.replace(/\./g, '\\.')}: `));
};

describe('request strings', () => {
  it('the table covers the free-text fields the database stores', () => {
    const fields = cases.map((entry) => entry.name);
    for (const expected of [
      'POST /agents/register agent_name',
      'POST /agents/register source',
      'POST /agents/register agent_platform',
      'POST /agents/register agent_version',
      'POST /agents/register webhook_url',
      'PATCH /agents/webhook webhook_url',
      'POST /generations prompt (layout 2)',
      'POST /generations negative_prompt (layout 2)',
      'POST /generations webhook_url (layout 2)',
      'POST /generations messages.0.content (layout 2)',
      'POST /generations input.prompt (layout 1)',
      'POST /generations webhook (layout 1)',
      'GET /models ?provider',
      'GET /generations/{id} {id}',
    ])
      expect(fields).toContain(expected);
  });

  it.each(cases.map((entry) => [entry.name, entry] as const))(
    '%s with a NUL: 400 naming the field',
    async (_, entry) => {
      const { method, path, body, key } = entry.request('a\u0000b');
      expectRefused(await call(stack, method, path, { body, key }), entry);
    },
  );

  // A URL carries UTF-8 bytes, which have no form for an unpaired surrogate: only bodies (JSON `\ud800`) can send one.
  it.each(bodyCases.map((entry) => [entry.name, entry] as const))(
    '%s with an unpaired surrogate: 400 naming the field',
    async (_, entry) => {
      const { method, path, body, key } = entry.request('a\ud800b');
      expectRefused(await call(stack, method, path, { body, key }), entry);
    },
  );

  it('names the reason for free text', async () => {
    const nul = await call(stack, 'POST', '/agents/register', { body: { agent_name: 'A\u0000da' } });
    expect(nul.body.message).toBe('Invalid body: agent_name: must not contain NUL (\\u0000) characters');
    const lone = await call(stack, 'POST', '/generations', {
      key: keys.developer,
      body: { type: 'text-to-image', model: 'fal/flux-schnell', prompt: 'x\udc00' },
    });
    expect(lone.body.message).toBe('Invalid body: prompt: must be valid Unicode (no unpaired surrogate)');
  });
});
