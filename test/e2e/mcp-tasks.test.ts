// `generate` as an MCP task (spec 2025-11-25), driven by the official SDK's client: a ken-burns render created as a
// task answers at admission with the generation's id, the client polls tasks/get and reads tasks/result (the tool
// result with a downloadable resource link); another connection (another server instance) answers for the same task,
// tasks/list lists it, tasks/cancel cancels a running one and refunds it; a keyless call gets HTTP 401 and another
// account's key a JSON-RPC error.
import {
  type CallToolResult,
  CallToolResultSchema,
  CreateTaskResultSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { call } from '../helpers/http.ts';
import { useMcpClients } from '../helpers/mcp-client.ts';
import { usePngInputServer } from '../helpers/png-input-server.ts';

const gateway = useGateway();
const owner = useFundedDeveloper(gateway);
const stranger = useFundedDeveloper(gateway);
// `/held.png` is answered only once a test releases it: its task stays running meanwhile.
const held: (() => void)[] = [];
const inputs = usePngInputServer({
  width: 64,
  height: 48,
  respond: (req, _res, sendPng) => (req.url === '/held.png' ? held.push(sendPng) : sendPng()),
});
const connect = useMcpClients(() => gateway.app.url);

const render = (image: string) => ({
  type: 'image-to-video',
  model: 'local/ken-burns',
  image_url: `${inputs.url()}/${image}`,
  duration: 3,
});

describe('generate as an MCP task', () => {
  it('answers at admission, then tasks/get and tasks/result, from any connection, with a downloadable link', async () => {
    const client = await connect(owner.key);
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'generate')!.execution).toEqual({ taskSupport: 'optional' });

    const messages = [];
    const stream = client.experimental.tasks.callToolStream(
      { name: 'generate', arguments: render('photo.png') },
      CallToolResultSchema,
      { task: { ttl: 60_000 }, timeout: 180_000 },
    );
    for await (const message of stream) messages.push(message);
    const [created, ...rest] = messages;
    expect(created).toMatchObject({ type: 'taskCreated', task: { taskId: expect.stringMatching(/^gen_/) } });
    const taskId = (created as { task: { taskId: string } }).task.taskId;
    expect(rest.at(-1)?.type, JSON.stringify(rest.at(-1))).toBe('result');
    const statuses = rest.filter((message) => message.type === 'taskStatus').map((message) => message.task);
    expect(statuses.at(-1)).toMatchObject({ taskId, status: 'completed', pollInterval: 2_000 });
    expect(statuses.at(-1)!.statusMessage).toBe('completed');
    // Thirty days of retention (the default) as the task's ttl, whatever the client asked for.
    expect(statuses.at(-1)!.ttl).toBe(30 * 86_400_000);

    // The generation is the task: REST reads it by the same id.
    const read = await call(gateway, 'GET', `/api/v1/generations/${taskId}`, { key: owner.key });
    expect(read.body).toMatchObject({ id: taskId, status: 'completed' });

    // A new connection (a new server instance, as another api process would be) answers for it.
    const other = await connect(owner.key);
    expect(await other.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'completed' });
    const result = (await other.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)) as CallToolResult;
    expect(result.structuredContent).toMatchObject({ id: taskId, status: 'completed' });
    expect(result._meta).toMatchObject({ 'io.modelcontextprotocol/related-task': { taskId } });
    const link = result.content.find((item) => item.type === 'resource_link')!;
    expect(link).toMatchObject({ mimeType: 'video/mp4', uri: read.body.output });
    const video = await fetch((link as { uri: string }).uri);
    expect(video.headers.get('content-type')).toBe('video/mp4');
    expect((await video.arrayBuffer()).byteLength).toBe((link as { size: number }).size);

    const { tasks } = await other.experimental.tasks.listTasks();
    expect(tasks.map((task) => task.taskId)).toContain(taskId);
  }, 240_000);

  it('cancels a running task with tasks/cancel, everything it reserved released', async () => {
    const client = await connect(owner.key);
    const before = (await call(gateway, 'GET', '/api/v1/account/balance', { key: owner.key })).body;
    const created = await client.request(
      { method: 'tools/call', params: { name: 'generate', arguments: render('held.png'), task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );
    const { taskId } = created.task;
    expect(created.task.status).toBe('working');
    const cancelled = await client.experimental.tasks.cancelTask(taskId);
    expect(cancelled).toMatchObject({ taskId, status: 'cancelled' });
    await expect.poll(async () => (await client.experimental.tasks.getTask(taskId)).status).toBe('cancelled');
    // Cancelling it again is refused: it has ended.
    await expect(client.experimental.tasks.cancelTask(taskId)).rejects.toThrow(/already ended/);
    for (const send of held.splice(0)) send();
    await expect
      .poll(async () => (await call(gateway, 'GET', '/api/v1/account/balance', { key: owner.key })).body)
      .toMatchObject({ balance: before.balance, balance_reserved: before.balance_reserved });
  }, 120_000);

  it('refuses a task without a key, and another account its tasks', async () => {
    // Without a credential: HTTP 401, so a host authorizes first (a task is read later with the same credential).
    const keyless = await connect();
    const keylessRefusal = keyless.request(
      { method: 'tools/call', params: { name: 'generate', arguments: render('photo.png'), task: {} } },
      CreateTaskResultSchema,
    );
    await expect(keylessRefusal).rejects.toMatchObject({ code: 401 });
    const mine = (await call(gateway, 'GET', '/api/v1/generations?limit=1', { key: owner.key })).body.generations[0];
    const elsewhere = await connect(stranger.key);
    const refused = await elsewhere.experimental.tasks.getTask(mine.id).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).code).toBe(-32602);
  });
});
