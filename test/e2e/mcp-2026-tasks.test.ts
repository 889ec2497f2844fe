// MCP tasks on the 2026-07-28 revision (the io.modelcontextprotocol/tasks extension, SEP-2663), spoken on the wire as
// a 2026 client does (its envelope, MCP-Protocol-Version, Mcp-Method and Mcp-Name): a client declaring the extension
// gets a task for `generate` of a Ken Burns video, follows it with tasks/get to its result (a downloadable link), and
// may cancel one, refunded; a client that does not declare it gets the tool's result, never a task.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient, resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { describe, expect, it } from 'vitest';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { clientInfo, mcp2026, tasksCapabilities } from '../helpers/mcp-2026.ts';
import { usePngInputServer } from '../helpers/png-input-server.ts';

const gateway = useGateway();
const owner = useFundedDeveloper(gateway);
const held: (() => void)[] = [];
const inputs = usePngInputServer({
  width: 64,
  height: 48,
  respond: (req, _res, sendPng) => (req.url === '/held.png' ? held.push(sendPng) : sendPng()),
});

const wire = () => mcp2026(gateway.app.url, owner.key);
const rpc = (...args: Parameters<ReturnType<typeof mcp2026>['rpc']>) => wire().rpc(...args);

const render = (image: string) => ({
  name: 'generate',
  arguments: { type: 'image-to-video', model: 'local/ken-burns', image_url: `${inputs.url()}/${image}`, duration: 3 },
});

async function untilEnded(taskId: string) {
  for (;;) {
    const { result } = await rpc('tasks/get', { taskId });
    if (result?.status !== 'working') return result!;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('MCP 2026 tasks', () => {
  it('are run to their result by the official tasks requester (@modelcontextprotocol/ext-tasks)', async () => {
    const client = new Client(clientInfo, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const url = new URL(`${gateway.app.url}/mcp`);
    await client.connect(
      new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${owner.key}` } } }),
    );
    // The requester frames 2026 task traffic itself and hands it to the host to send (the SDK client's codecs
    // know no task results): here, the same POST a 2026 client makes.
    const session = createTaskSessionFromClient(client, {
      endpointId: gateway.app.url,
      v2RequestFraming: { protocolVersion: '2026-07-28', clientInfo, clientCapabilities: tasksCapabilities },
      rawDispatch: async (request) => {
        const { method, params } = request as { method: string; params: Record<string, unknown> };
        const answer = await wire().post(method, params);
        return answer.error ? { kind: 'error', error: answer.error } : { kind: 'result', result: answer.result! };
      },
    });
    try {
      const execution = await session.callTool('generate', render('photo.png').arguments);
      expect(execution.kind).toBe('task');
      const { outcome } = await execution.settle();
      const result = resultFromTaskOutcome(outcome) as { content: { type: string; uri?: string }[] };
      const link = result.content.find((block) => block.type === 'resource_link');
      expect((await fetch(link!.uri!)).status).toBe(200);
    } finally {
      await session.close();
      await client.close();
    }
  });

  it('advertises the extension on server/discover', async () => {
    const { result } = await rpc('server/discover', {});
    expect(result?.capabilities.extensions).toEqual({ 'io.modelcontextprotocol/tasks': {} });
    expect(result?.supportedVersions).toEqual(expect.arrayContaining(['2026-07-28']));
  });

  it('answers generate with a task, then tasks/get carries its result with a downloadable link', async () => {
    const created = await rpc('tools/call', render('photo.png'));
    expect(created.result).toMatchObject({
      resultType: 'task',
      taskId: expect.stringMatching(/^gen_/),
      status: 'working',
      pollIntervalMs: 2000,
    });
    const ended = await untilEnded(created.result!.taskId);
    expect(ended).toMatchObject({ status: 'completed', resultType: 'complete', taskId: created.result!.taskId });
    expect(ended.result.isError).toBeFalsy();
    expect(ended.result.structuredContent).toMatchObject({ id: created.result!.taskId, status: 'completed' });
    const link = ended.result.content.find((block: { type: string }) => block.type === 'resource_link');
    expect(link).toMatchObject({ mimeType: 'video/mp4' });
    const video = await fetch(link.uri);
    expect(video.status).toBe(200);
    expect((await video.arrayBuffer()).byteLength).toBeGreaterThan(1000);
  });

  it('cancels a running task, refunded; cancelling it again is the same empty ack and changes nothing', async () => {
    const before = await owner.balance();
    const created = await rpc('tools/call', render('held.png'));
    const taskId = created.result!.taskId as string;
    expect(await rpc('tasks/cancel', { taskId })).toMatchObject({ result: {} });
    held.splice(0).forEach((send) => send());
    expect(await untilEnded(taskId)).toMatchObject({ status: 'cancelled' });
    await expect.poll(() => owner.balance()).toBe(before);
    const again = await rpc('tasks/cancel', { taskId });
    expect(again.error).toBeUndefined();
    expect(again.result).toMatchObject({ resultType: 'complete' });
    expect(await untilEnded(taskId)).toMatchObject({ status: 'cancelled' });
    expect(await owner.balance()).toBe(before);
  });

  it('refuses tasks/update of a task that never waits for input, naming it', async () => {
    const taskId = (await rpc('tools/call', render('photo.png'))).result!.taskId as string;
    const refused = await rpc('tasks/update', { taskId, inputResponses: {} });
    expect(refused.error).toMatchObject({ code: -32602, message: expect.stringContaining('not waiting for input') });
  });

  it('answers a client that did not declare the extension -32021 for the task methods, with a key or without', async () => {
    const taskId = (await rpc('tools/call', render('photo.png'))).result!.taskId as string;
    for (const requester of [wire(), mcp2026(gateway.app.url)])
      for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
        const refused = await requester.rpc(method, { taskId, inputResponses: {} }, {});
        expect(refused.error, method).toMatchObject({
          code: -32021,
          data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
        });
      }
    expect(await untilEnded(taskId)).toMatchObject({ status: 'completed' });
  });

  it('has no tasks/result or tasks/list on 2026 (-32601, asked with no key too), and ignores a 2025 `task` param', async () => {
    const keyless = mcp2026(gateway.app.url);
    expect((await keyless.rpc('tasks/result', { taskId: 'gen_x' })).error).toMatchObject({ code: -32601 });
    expect((await keyless.rpc('tasks/list', {})).error).toMatchObject({ code: -32601 });
    const listed = await keyless.rpc('tools/call', { name: 'list_models', arguments: {}, task: { ttl: 1000 } });
    expect(listed.result).toMatchObject({ resultType: 'complete', structuredContent: { models: expect.any(Array) } });
  });

  it('gives a client that does not declare the extension the tool result, not a task', async () => {
    const answered = await rpc('tools/call', render('photo.png'), {});
    expect(answered.result).toMatchObject({ resultType: 'complete' });
    expect(answered.result?.structuredContent).toMatchObject({ id: expect.stringMatching(/^gen_/) });
  });
});
