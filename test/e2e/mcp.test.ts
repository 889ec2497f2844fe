// The MCP server at /mcp, driven by the official SDK's own client over Streamable HTTP: the tools are the REST
// endpoints (their schemas, keys, refusals), a generate call waits with progress notifications, and what the REST API
// would refuse comes back as a tool error with the API's code and message.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { credit } from '../../src/ledger/ledger.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { useMcpClients } from '../helpers/mcp-client.ts';
import { usePngInputServer } from '../helpers/png-input-server.ts';

// No trial credit: a new agent's balance is 0, so any task is more than it has.
const stack = useGateway(() => ({ accounts: { trialCreditUsd: 0n } }));
const owner = useFundedDeveloper(stack);
// `/held.png` is answered only once a test releases it: its task stays running meanwhile.
const held: (() => void)[] = [];
let released = false;
const releaseHeld = () => {
  released = true;
  for (const send of held.splice(0)) send();
};
const inputs = usePngInputServer({
  width: 64,
  height: 48,
  respond: (req, _res, sendPng) => (req.url === '/held.png' && !released ? held.push(sendPng) : sendPng()),
});

const connect = useMcpClients(() => stack.app.url);

const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

describe('the MCP server', () => {
  it('lists every tool with arguments from the REST schemas', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'cancel_generation',
      'create_key',
      'deposit',
      'generate',
      'get_balance',
      'get_current_key',
      'get_generation',
      'get_usage',
      'list_generations',
      'list_keys',
      'list_models',
      'quote',
      'register_agent',
      'revoke_key',
      'set_webhook',
      'top_up',
    ]);
    const generate = tools.find((tool) => tool.name === 'generate')!;
    expect(generate.inputSchema.required).toEqual(expect.arrayContaining(['type', 'model']));
    expect(Object.keys(generate.inputSchema.properties!)).toEqual(
      expect.arrayContaining(['prompt', 'image_url', 'resolution', 'webhook_url', 'idempotency_key', 'wait_seconds']),
    );
  });

  it("sets every one of MCP's behaviour hints on every tool: only the reading tools are read-only", async () => {
    const { tools } = await (await connect()).listTools();
    const hints = Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]));
    for (const [name, annotations] of Object.entries(hints))
      expect(Object.keys(annotations ?? {}).sort(), name).toEqual([
        'destructiveHint',
        'idempotentHint',
        'openWorldHint',
        'readOnlyHint',
      ]);
    const named = (hint: 'readOnlyHint' | 'destructiveHint' | 'openWorldHint') =>
      tools
        .filter((tool) => tool.annotations?.[hint])
        .map((tool) => tool.name)
        .sort();
    expect(named('readOnlyHint')).toEqual([
      'get_balance',
      'get_current_key',
      'get_generation',
      'get_usage',
      'list_generations',
      'list_keys',
      'list_models',
      'quote',
    ]);
    expect(named('destructiveHint')).toEqual(['cancel_generation', 'revoke_key', 'set_webhook']);
    // Only these reach past the gateway: a model's provider, the chain.
    expect(named('openWorldHint')).toEqual(['deposit', 'generate', 'top_up']);
    expect(hints.generate).toMatchObject({ idempotentHint: false });
    // Every tool declares its answers (the SDK client of every test here checks each result against them).
    for (const tool of tools)
      expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object', anyOf: expect.any(Array) });
  });

  it('registers an agent without a key, whose rf_ key reads its balance, lists models, generates and reads the task', async () => {
    const anonymous = await connect();
    const registered = await call(anonymous, 'register_agent', { agent_name: 'mcp agent' });
    expect(registered.isError).toBeFalsy();
    const agent = registered.structuredContent as {
      agent_id: string;
      api_key: string;
      deposit_addresses: Record<string, string>;
    };
    expect(agent.api_key).toMatch(/^rf_/);
    expect(JSON.parse((registered.content[0] as { text: string }).text)).toEqual(agent);

    const client = await connect(agent.api_key);
    const balance = (await call(client, 'get_balance')).structuredContent as Record<string, unknown>;
    expect(balance).toMatchObject({ deposit_addresses: agent.deposit_addresses, asset: expect.any(String) });
    const models = (await call(client, 'list_models', { type: 'upscale' })).structuredContent as {
      models: { id: string; type: string }[];
    };
    expect(models.models.length).toBeGreaterThan(0);
    expect(new Set(models.models.map((model) => model.type))).toEqual(new Set(['upscale']));

    // Funded as a deposit would (no trial credit here), it generates speech and reads the completed task.
    const accountId = agent.agent_id;
    await credit(stack.database.prisma, {
      accountId,
      amount: 1_000_000n,
      kind: 'deposit',
      idempotencyKey: `mcp:${accountId}`,
    });
    const created = await call(client, 'generate', { type: 'text-to-audio', model: 'local/espeak', prompt: 'Hello.' });
    const queued = created.structuredContent as { id: string; status: string; poll_url: string };
    expect(queued).toMatchObject({ status: 'queued', poll_url: `/api/v1/generations/${queued.id}` });
    const read = await call(client, 'get_generation', { id: queued.id, wait_seconds: 120 });
    const task = read.structuredContent as { status: string; output: string };
    expect(task.status).toBe('completed');
    const output = await fetch(task.output);
    expect(output.headers.get('content-type')).toBe('audio/wav');
    expect((await output.arrayBuffer()).byteLength).toBeGreaterThan(1_000);
  }, 240_000);

  it('generates and waits for the task, charged once; a retry with its key answers the same task', async () => {
    const client = await connect(owner.key);
    const result = (await client.callTool(
      {
        name: 'generate',
        arguments: {
          type: 'upscale',
          model: 'local/lanczos',
          image_url: `${inputs.url()}/photo.png`,
          idempotency_key: 'mcp-1',
          wait_seconds: 120,
        },
      },
      undefined,
      { timeout: 180_000 },
    )) as CallToolResult;
    expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy();
    const task = result.structuredContent as { id: string; status: string; output: string };
    expect(task.status).toBe('completed');
    const downloaded = await fetch(task.output);
    expect(downloaded.headers.get('content-type')).toBe('image/png');
    // The output as a link with its type and size, and one small inline thumbnail (a JPEG of at most 256 px, 64 KB).
    const [, link, thumbnail] = result.content;
    expect(link).toEqual({
      type: 'resource_link',
      uri: task.output,
      name: expect.stringMatching(/\.png$/),
      mimeType: 'image/png',
      size: (await downloaded.arrayBuffer()).byteLength,
    });
    expect(thumbnail).toMatchObject({ type: 'image', mimeType: 'image/jpeg' });
    const preview = Buffer.from((thumbnail as { data: string }).data, 'base64');
    expect(preview.length).toBeLessThanOrEqual(64 * 1024);
    const { width, height, format } = await sharp(preview).metadata();
    expect([format, Math.max(width, height) <= 256]).toEqual(['jpeg', true]);

    // The same key again answers the same task, and get_generation reads it.
    const again = await call(client, 'generate', {
      type: 'upscale',
      model: 'local/lanczos',
      image_url: `${inputs.url()}/photo.png`,
      idempotency_key: 'mcp-1',
    });
    expect((again.structuredContent as { id: string }).id).toBe(task.id);
    const read = await call(client, 'get_generation', { id: task.id });
    expect(read.structuredContent).toMatchObject({ id: task.id, status: 'completed', output: task.output });
    const charges = await stack.database.prisma.ledgerEntry.count({
      where: { accountId: owner.accountId, kind: 'charge' },
    });
    expect(charges).toBe(1);
  }, 240_000);

  it("reports a waiting generate call's progress as MCP progress notifications, rising", async () => {
    const client = await connect(owner.key);
    const reports: { progress: number; message?: string }[] = [];
    const answer = client.callTool(
      {
        name: 'generate',
        arguments: {
          type: 'upscale',
          model: 'local/lanczos',
          image_url: `${inputs.url()}/held.png`,
          idempotency_key: 'mcp-progress',
          wait_seconds: 300,
        },
      },
      undefined,
      { onprogress: (report) => reports.push(report), timeout: 360_000 },
    ) as Promise<CallToolResult>;
    const seen = (check: () => boolean, what: string) =>
      expect.poll(check, { timeout: 60_000, interval: 100, message: what }).toBe(true);
    // While its input is held the task is running: the first look reports it.
    await seen(() => reports.length > 0, 'a first report');
    expect(reports[0]).toEqual({ progress: 0, total: 100, message: 'processing: downloading input' });
    // An engine's report, as the provider activity writes it, reaches the client as its percent.
    const { prisma } = stack.database;
    const running = await prisma.task.findFirstOrThrow({ where: { accountId: owner.accountId, status: 'processing' } });
    await prisma.task.update({ where: { id: running.id }, data: { progress: { stage: 'rendering', percent: 40 } } });
    await seen(() => reports.some((report) => report.progress === 40), 'the percent reported');
    expect(reports.at(-1)).toEqual({ progress: 40, total: 100, message: 'processing: rendering' });
    releaseHeld();
    expect((await answer).structuredContent).toMatchObject({ id: running.id, status: 'completed' });
    expect(reports.every((report, index) => index === 0 || report.progress > reports[index - 1]!.progress)).toBe(true);
  }, 420_000);

  it("answers what the API refuses as a tool error with the API's code and message", async () => {
    const client = await connect(owner.key);
    const invalid = await call(client, 'generate', { type: 'upscale' });
    expect(invalid.isError).toBe(true);
    expect(invalid.structuredContent).toEqual({
      error: 'validation_error',
      message: expect.stringMatching(/^Invalid body: model: /),
    });
    const missing = await call(client, 'get_generation', { id: `gen_${'a'.repeat(22)}` });
    expect(missing.structuredContent).toMatchObject({ error: 'not_found' });
    const wrongKind = await call(client, 'deposit', { chain: 'base', tx_hash: `0x${'1'.repeat(64)}` });
    expect(wrongKind.structuredContent).toMatchObject({ error: 'forbidden' });
    // No credential at all is HTTP 401, so a host starts OAuth (test/e2e/mcp-oauth.test.ts); a bad key is a tool error.
    await expect(call(await connect(), 'get_balance')).rejects.toMatchObject({ code: 401 });
    const unknownKey = await call(await connect(`sk_${'x'.repeat(32)}`), 'get_balance');
    expect(unknownKey.structuredContent).toMatchObject({ error: 'unauthorized' });
  });

  it('tells an agent short of money what it costs, what it lacks and where to deposit', async () => {
    const anonymous = await connect();
    const agent = (await call(anonymous, 'register_agent', { agent_name: 'poor agent' })).structuredContent as {
      api_key: string;
      deposit_addresses: Record<string, string>;
    };
    const client = await connect(agent.api_key);
    const refused = await call(client, 'generate', {
      type: 'upscale',
      model: 'local/lanczos',
      image_url: `${inputs.url()}/photo.png`,
    });
    expect(refused.isError).toBe(true);
    const body = refused.structuredContent as Record<string, number | object>;
    expect(body).toMatchObject({ error: 'insufficient_balance', deposit_addresses: agent.deposit_addresses });
    expect(body.balance_available).toBe(0);
    expect(body.shortfall).toBe(body.cost);
    expect(body.cost).toBeGreaterThan(0);
  });

  it('refuses GET and DELETE on /mcp: the server is stateless', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${stack.app.url}/mcp`, { method });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    }
  });
});
