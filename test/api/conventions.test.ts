// The HTTP conventions every endpoint shares, table-driven: each status, the exact error body, the headers.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { defineEndpoint } from '../../src/api/endpoint.ts';
import { apiEndpoints } from '../../src/api/resources/index.ts';
import { z } from '../../src/api/schemas/zod.ts';
import { createAgentWithKey, createFundedAccount } from '../helpers/accounts.ts';
import { testFilesDir, useAppWithDatabase } from '../helpers/app.ts';
import { createTaskRow } from '../helpers/task-rows.ts';

// Endpoints that exist only here, mounted through the same machinery, to reach the internal-error paths.
const failingEndpoints = [
  defineEndpoint({
    method: 'get',
    path: '/test/boom',
    operationId: 'boom',
    summary: 'throws',
    tags: [],
    auth: 'none',
    success: { status: 200, description: 'never', schema: z.object({}) },
    handle: () => {
      throw new Error('secret database password in this message');
    },
  }),
  defineEndpoint({
    method: 'get',
    path: '/test/bad-response',
    operationId: 'badResponse',
    summary: 'breaks its schema',
    tags: [],
    auth: 'none',
    success: { status: 200, description: 'never', schema: z.object({ id: z.string() }) },
    handle: () => ({ body: { id: 42 } }),
  }),
  // Every endpoint of the interface has landed; the 501 machinery stays for the next one.
  defineEndpoint({
    method: 'post',
    path: '/test/pending',
    operationId: 'pending',
    summary: 'not landed yet',
    tags: [],
    auth: 'agent',
    request: { body: z.object({ name: z.string() }) },
    success: { status: 200, description: 'never', schema: z.object({}) },
    pendingUntil: 'a later issue',
  }),
];

const stack = useAppWithDatabase({ endpoints: [...apiEndpoints, ...failingEndpoints] });
let agentKey: string;
let completedTaskId: string;
beforeAll(async () => {
  agentKey = (await createAgentWithKey(stack.database.prisma)).apiKey.key;
  completedTaskId = await createTaskRow(
    stack.database.prisma,
    await createFundedAccount(stack.database.prisma),
    'completed',
  );
});

interface Case {
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** Sends the test agent's key. */
  asAgent?: boolean;
  body?: string;
  status: number;
  error: string;
  message: RegExp;
}

const json = { 'content-type': 'application/json' };

const cases: Case[] = [
  {
    name: 'unknown route',
    method: 'GET',
    path: '/api/v1/nope',
    status: 404,
    error: 'not_found',
    message: /No route for GET \/nope/,
  },
  {
    name: 'route outside the API',
    method: 'GET',
    path: '/nothing-here',
    status: 404,
    error: 'not_found',
    message: /No route/,
  },
  {
    name: 'wrong method',
    method: 'DELETE',
    path: '/api/v1/models',
    status: 405,
    error: 'method_not_allowed',
    message: /allowed: GET, HEAD/,
  },
  {
    name: 'wrong method on a path with a parameter',
    method: 'POST',
    path: '/api/v1/generations/gen_1',
    status: 405,
    error: 'method_not_allowed',
    message: /allowed: GET, HEAD/,
  },
  {
    name: 'bad JSON',
    method: 'POST',
    path: '/api/v1/agents/register',
    headers: json,
    body: '{"agent_name": ',
    status: 400,
    error: 'invalid_json',
    message: /not valid JSON/,
  },
  {
    name: 'body too large',
    method: 'POST',
    path: '/api/v1/agents/register',
    headers: json,
    body: JSON.stringify({ agent_name: 'x'.repeat(1_100_000) }),
    status: 413,
    error: 'payload_too_large',
    message: /exceeds the limit of 1048576 bytes/,
  },
  {
    name: 'not JSON',
    method: 'POST',
    path: '/api/v1/agents/register',
    headers: { 'content-type': 'text/plain' },
    body: 'agent_name=bob',
    status: 415,
    error: 'unsupported_media_type',
    message: /application\/json/,
  },
  {
    name: 'missing body',
    method: 'POST',
    path: '/api/v1/agents/register',
    headers: json,
    status: 400,
    error: 'validation_error',
    message: /^Invalid body: body: /,
  },
  {
    name: 'field too short',
    method: 'POST',
    path: '/api/v1/agents/register',
    headers: json,
    body: '{"agent_name":"ab"}',
    status: 400,
    error: 'validation_error',
    message: /agent_name: Too small/,
  },
  {
    name: 'field too long',
    method: 'POST',
    path: '/api/v1/agents/register',
    headers: json,
    body: JSON.stringify({ agent_name: 'bot', agent_version: 'v'.repeat(51) }),
    status: 400,
    error: 'validation_error',
    message: /agent_version: Too big/,
  },
  {
    name: 'URI that is not http(s)',
    method: 'POST',
    path: '/api/v1/agents/register',
    headers: json,
    body: '{"agent_name":"bot","webhook_url":"ftp://example.com"}',
    status: 400,
    error: 'validation_error',
    message: /webhook_url: must be an http\(s\) URI/,
  },
  {
    name: 'bad enum',
    method: 'POST',
    path: '/api/v1/agents/deposit',
    headers: json,
    asAgent: true,
    body: `{"chain":"solana","tx_hash":"0x${'a'.repeat(64)}"}`,
    status: 400,
    error: 'validation_error',
    message: /chain: Invalid option/,
  },
  {
    name: 'bad pattern',
    method: 'POST',
    path: '/api/v1/agents/deposit',
    headers: json,
    asAgent: true,
    body: '{"chain":"base","tx_hash":"0x12"}',
    status: 400,
    error: 'validation_error',
    message: /tx_hash: must be 0x followed by 64 hex digits/,
  },
  {
    name: 'integer minimum',
    method: 'POST',
    path: '/api/v1/generations',
    headers: json,
    asAgent: true,
    body: '{"type":"text-to-text","model":"m","max_tokens":0}',
    status: 400,
    error: 'validation_error',
    message: /max_tokens: Too small/,
  },
  {
    name: 'bad query value',
    method: 'GET',
    path: '/api/v1/models?type=text-to-smell',
    status: 400,
    error: 'validation_error',
    message: /^Invalid query: type: Invalid option/,
  },
  {
    name: 'valid request to an endpoint not landed yet',
    method: 'POST',
    path: '/api/v1/test/pending',
    headers: json,
    asAgent: true,
    body: '{"name":"x"}',
    status: 501,
    error: 'not_implemented',
    message: /POST \/api\/v1\/test\/pending is not implemented yet; it lands with a later issue/,
  },
  {
    name: 'malformed URL encoding',
    method: 'GET',
    path: '/api/v1/generations/%E0%A4%A',
    asAgent: true,
    status: 400,
    error: 'validation_error',
    message: /malformed/,
  },
  {
    name: 'handler throws',
    method: 'GET',
    path: '/api/v1/test/boom',
    status: 500,
    error: 'internal_error',
    message: /quote request id req_/,
  },
  {
    name: 'response breaks its schema',
    method: 'GET',
    path: '/api/v1/test/bad-response',
    status: 500,
    error: 'internal_error',
    message: /internal error/,
  },
];

describe('error envelope', () => {
  it.each(cases)('$name → $status $error', async (testCase) => {
    const headers = { ...testCase.headers, ...(testCase.asAgent ? { authorization: `Bearer ${agentKey}` } : {}) };
    const response = await fetch(`${stack.app.url}${testCase.path}`, {
      method: testCase.method,
      headers,
      body: testCase.body,
    });
    expect(response.status).toBe(testCase.status);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
    const body = (await response.json()) as any;
    expect(Object.keys(body).sort()).toEqual(['error', 'message']);
    expect(body.error).toBe(testCase.error);
    expect(body.message).toMatch(testCase.message);
    // Nothing of the server's internals leaks: no stack frames, no exception text.
    expect(JSON.stringify(body)).not.toMatch(/at .+\.ts:\d+|secret|Error:/);
  });

  it('answers 405 with an Allow header', async () => {
    const response = await fetch(`${stack.app.url}/api/v1/agents/register`, { method: 'GET' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});

describe('output files', () => {
  // A malformed percent-encoding names no file: 404, whether it is in the task id or the file name.
  it.each([
    { where: 'task id', path: () => '/files/%E0%A4%A/out.png' },
    { where: 'file name of a completed task', path: () => `/files/${completedTaskId}/%E0%A4%A.png` },
  ])('answers 404 to a malformed encoding in the $where', async ({ path }) => {
    const response = await fetch(`${stack.app.url}${path()}`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ error: 'not_found', message: `No file ${path()}.` });
  });

  it('answers a Range outside a local file with 416 and its size, in the error envelope (as for a bucket)', async () => {
    await mkdir(join(testFilesDir, completedTaskId), { recursive: true });
    await writeFile(join(testFilesDir, completedTaskId, 'clip.mp4'), Buffer.alloc(100, 7));
    const link = `${stack.app.url}/files/${completedTaskId}/clip.mp4`;
    expect((await fetch(link, { headers: { range: 'bytes=90-' } })).status).toBe(206);
    const response = await fetch(link, { headers: { range: 'bytes=100-' } });
    expect(response.status).toBe(416);
    expect(response.headers.get('content-range')).toBe('bytes */100');
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual({
      error: 'range_not_satisfiable',
      message: 'No bytes of the file are in the range asked for; Content-Range gives its size.',
    });
  });
});

describe('request ids', () => {
  it('echoes a sane incoming X-Request-Id and replaces an unsafe one', async () => {
    const kept = await fetch(`${stack.app.url}/api/v1/models`, { headers: { 'x-request-id': 'trace-123.abc' } });
    expect(kept.headers.get('x-request-id')).toBe('trace-123.abc');
    const replaced = await fetch(`${stack.app.url}/api/v1/models`, {
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    expect(replaced.headers.get('x-request-id')).toMatch(/^req_/);
  });
});

describe('deprecated routes', () => {
  it('marks the predictions alias deprecated with its sunset date', async () => {
    const response = await fetch(`${stack.app.url}/api/v1/predictions/gen_abc/result`);
    expect(response.headers.get('deprecation')).toBe('true');
    expect(response.headers.get('sunset')).toBe('Wed, 29 Jul 2026 10:24:55 GMT');
    expect(response.headers.get('link')).toBe('</api/v1/generations/gen_abc>; rel="successor-version"');
  });

  it('redirects the old /v1 prefix to /api/v1 keeping the method', async () => {
    const response = await fetch(`${stack.app.url}/v1/models?type=upscale`, { redirect: 'manual' });
    expect(response.status).toBe(308);
    expect(response.headers.get('location')).toBe('/api/v1/models?type=upscale');
  });
});
