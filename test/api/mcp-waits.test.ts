// How an MCP tool waits for a task: a look that comes back at once (the task's workflow is gone, Temporal unreachable,
// shutdown) is not repeated at once, and a waiting `generate` with an API key names its idempotency key, so a host
// that retries the call cannot create a second task.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDeveloperWithKey } from '../helpers/accounts.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { useMcpClients } from '../helpers/mcp-client.ts';
import { useDevServerAndDatabase } from '../helpers/stack.ts';
import { createTaskRow } from '../helpers/task-rows.ts';
import { uniqueTaskQueue } from '../helpers/temporal.ts';

// Every read with a key counts here (one token per lease below 100), in a window longer than the file.
const readsLimit = 40;
const stack = useDevServerAndDatabase();
let app: TestApp;
let developer: Awaited<ReturnType<typeof createDeveloperWithKey>>;
beforeAll(async () => {
  app = await startTestApp({
    database: stack.database,
    temporal: { client: stack.env.client, taskQueue: uniqueTaskQueue('mcp-waits') },
    config: {
      rateLimits: {
        windowSeconds: 3600,
        reads: { free: readsLimit, starter: readsLimit, pro: readsLimit, enterprise: readsLimit },
      },
    },
  });
  developer = await createDeveloperWithKey(stack.database.prisma);
  return () => app.close();
});
const connect = useMcpClients(() => app.url);

const callTool = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as CallToolResult;

describe('a waiting MCP tool', () => {
  it('pauses between looks when each wait comes back at once (a task without a workflow)', async () => {
    const { prisma } = stack.database;
    const id = await createTaskRow(prisma, developer.developerId, 'processing');
    const client = await connect(developer.apiKey.key);
    const read = await callTool(client, 'get_generation', { id, wait_seconds: 8 });
    // Spinning, the looks would run into the reads limit within the wait and answer rate_limited.
    expect(read.isError, JSON.stringify(read.structuredContent)).toBeFalsy();
    expect(read.structuredContent).toMatchObject({ id, status: 'processing' });
    const [counted] = await prisma.$queryRaw<{ used: number }[]>`
      SELECT used FROM rate_limit_windows WHERE key = ${`reads:${developer.developerId}`}`;
    // One read, then a look every two seconds for eight: a handful, however slow the machine.
    expect(counted!.used).toBeLessThanOrEqual(10);
  }, 120_000);

  it('generate with wait_seconds and an API key but no idempotency_key is refused, nothing created', async () => {
    const { prisma } = stack.database;
    const another = await createDeveloperWithKey(prisma);
    const client = await connect(another.apiKey.key);
    const refused = await callTool(client, 'generate', {
      type: 'upscale',
      model: 'local/lanczos',
      image_url: 'https://inputs.example/a.png',
      wait_seconds: 30,
    });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toEqual({
      error: 'validation_error',
      message: expect.stringMatching(/^Invalid body: idempotency_key: required with wait_seconds/),
    });
    expect(await prisma.task.count({ where: { accountId: another.developerId } })).toBe(0);
  }, 120_000);
});
