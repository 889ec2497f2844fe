// GET /generations, the caller's task history: newest first, each task exactly as GET /generations/{id} answers it,
// filtered, paged with an opaque cursor that stays right while tasks are being created, never another account's tasks;
// and the same through the MCP tool list_generations.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import type { Prisma } from '../../src/generated/prisma/client.ts';
import { createAgentWithKey, createDeveloperWithKey } from '../helpers/accounts.ts';
import { useAppWithDatabase } from '../helpers/app.ts';
import { call } from '../helpers/http.ts';
import { useMcpClients } from '../helpers/mcp-client.ts';
import { createTaskRow } from '../helpers/task-rows.ts';

const stack = useAppWithDatabase();
const connect = useMcpClients(() => stack.app.url);

type TaskStatus = 'queued' | 'processing' | 'completed' | 'failed';
const taskOf = (
  accountId: string,
  status: TaskStatus = 'completed',
  overrides: Partial<Prisma.TaskUncheckedCreateInput> = {},
) => createTaskRow(stack.database.prisma, accountId, status, overrides);

const list = (key: string, query = '') => call(stack, 'GET', `/generations${query}`, { key });

/** Every page of the caller's history with `query`, following next_cursor; the ids in the order listed. */
async function allPages(key: string, query: string, between?: () => Promise<unknown>): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const page = await list(key, `?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    ids.push(...page.body.generations.map((task: { id: string }) => task.id));
    cursor = page.body.next_cursor;
    await between?.();
  } while (cursor);
  return ids;
}

/** Tasks of one account, created `at` the given instants (ties included); newest first as the history orders them. */
async function tasksAt(accountId: string, instants: Date[]): Promise<string[]> {
  const rows = [];
  for (const createdAt of instants) rows.push({ id: await taskOf(accountId, 'completed', { createdAt }), createdAt });
  rows.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1));
  return rows.map((row) => row.id);
}

describe('GET /generations', () => {
  it("lists the caller's tasks newest first, each exactly as GET /generations/{id} answers it, no one else's", async () => {
    const owner = await createDeveloperWithKey(stack.database.prisma);
    const other = await createAgentWithKey(stack.database.prisma);
    const statuses: TaskStatus[] = ['queued', 'processing', 'completed', 'failed'];
    const base = Date.now() - 60_000;
    const ids = [];
    for (const [index, status] of statuses.entries())
      ids.push(await taskOf(owner.developerId, status, { createdAt: new Date(base + index * 1000) }));
    await taskOf(other.agentId, 'completed');

    const listed = await list(owner.apiKey.key);
    expect(listed.status).toBe(200);
    expect(listed.body.next_cursor).toBeNull();
    expect(listed.body.generations.map((task: { id: string }) => task.id)).toEqual([...ids].reverse());
    for (const task of listed.body.generations) {
      const read = await call(stack, 'GET', `/generations/${task.id}`, { key: owner.apiKey.key });
      expect(task).toEqual(read.body);
    }
    // An agent's key lists its own tasks, and only those.
    const agents = await list(other.apiKey.key);
    expect(agents.body.generations).toHaveLength(1);
    expect(ids).not.toContain(agents.body.generations[0].id);
  });

  it('refuses a call without an API key', async () => {
    const anonymous = await call(stack, 'GET', '/generations');
    expect(anonymous).toMatchObject({ status: 401, body: { error: 'unauthorized' } });
  });

  it('pages by limit (default 20, 1 to 100), the last page without a next_cursor', async () => {
    const owner = await createDeveloperWithKey(stack.database.prisma);
    const base = Date.now() - 3_600_000;
    const ids = await tasksAt(
      owner.developerId,
      Array.from({ length: 23 }, (_, index) => new Date(base + index * 10)),
    );
    const first = await list(owner.apiKey.key);
    expect(first.body.generations).toHaveLength(20);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const rest = await list(owner.apiKey.key, `?cursor=${first.body.next_cursor}`);
    expect(rest.body.generations.map((task: { id: string }) => task.id)).toEqual(ids.slice(20));
    expect(rest.body.next_cursor).toBeNull();
    expect((await list(owner.apiKey.key, '?limit=100')).body.generations).toHaveLength(23);
    expect(await allPages(owner.apiKey.key, 'limit=1')).toEqual(ids);
    for (const limit of ['0', '101', '-1', '1.5', 'ten', '']) {
      const refused = await list(owner.apiKey.key, `?limit=${limit}`);
      expect(refused, `limit=${limit}`).toMatchObject({ status: 400, body: { error: 'validation_error' } });
      expect(refused.body.message).toMatch(/limit/);
    }
  });

  it('orders tasks created in the same millisecond by id, none skipped or repeated across pages', async () => {
    const owner = await createDeveloperWithKey(stack.database.prisma);
    const instant = new Date(Date.now() - 7_200_000);
    const later = new Date(instant.getTime() + 1);
    const ids = await tasksAt(owner.developerId, [...Array(7).fill(instant), ...Array(4).fill(later)]);
    for (const limit of [1, 2, 3, 5]) expect(await allPages(owner.apiKey.key, `limit=${limit}`)).toEqual(ids);
  });

  it('filters by status, type, model, idempotency_key and creation time, all together', async () => {
    const owner = await createDeveloperWithKey(stack.database.prisma);
    const hour = 3_600_000;
    const base = Date.now() - 10 * hour;
    const at = (hours: number) => new Date(base + hours * hour);
    const failed = await taskOf(owner.developerId, 'failed', { createdAt: at(1) });
    const speech = await taskOf(owner.developerId, 'completed', {
      createdAt: at(2),
      type: 'text-to-audio',
      model: 'local/espeak',
      idempotencyKey: 'order-42',
    });
    const upscale = await taskOf(owner.developerId, 'completed', { createdAt: at(3) });
    const queued = await taskOf(owner.developerId, 'queued', { createdAt: at(4) });
    const idsOf = async (query: string) =>
      (await list(owner.apiKey.key, query)).body.generations.map((task: { id: string }) => task.id);

    expect(await idsOf('?status=completed')).toEqual([upscale, speech]);
    expect(await idsOf('?status=failed')).toEqual([failed]);
    expect(await idsOf('?type=text-to-audio')).toEqual([speech]);
    expect(await idsOf('?model=local/lanczos')).toEqual([queued, upscale, failed]);
    expect(await idsOf('?idempotency_key=order-42')).toEqual([speech]);
    expect(await idsOf('?idempotency_key=order-43')).toEqual([]);
    const window = `created_after=${encodeURIComponent(at(1).toISOString())}&created_before=${encodeURIComponent(at(4).toISOString())}`;
    expect(await idsOf(`?${window}`)).toEqual([upscale, speech]);
    expect(await idsOf(`?${window}&status=completed&model=local/espeak`)).toEqual([speech]);
    // The same instant written with an offset.
    const withOffset = new Date(at(3).getTime() + 2 * hour).toISOString().replace('Z', '+02:00');
    expect(await idsOf(`?created_before=${encodeURIComponent(withOffset)}`)).toEqual([speech, failed]);
  });

  it.each([
    ['status', 'status=cancelled'],
    ['type', 'type=painting'],
    ['model', 'model='],
    ['idempotency_key', 'idempotency_key=has%20space'],
    ['created_after', 'created_after=yesterday'],
    ['created_before', 'created_before=2026-13-01T00:00:00Z'],
  ])('refuses a bad %s with 400 naming it', async (field, query) => {
    const owner = await createDeveloperWithKey(stack.database.prisma);
    const refused = await list(owner.apiKey.key, `?${query}`);
    expect(refused).toMatchObject({ status: 400, body: { error: 'validation_error' } });
    expect(refused.body.message).toContain(field);
  });

  it('refuses a garbled or tampered cursor with 400 naming cursor', async () => {
    const owner = await createDeveloperWithKey(stack.database.prisma);
    await tasksAt(owner.developerId, [new Date(Date.now() - 5000), new Date(Date.now() - 4000)]);
    const cursor = (await list(owner.apiKey.key, '?limit=1')).body.next_cursor as string;
    expect((await list(owner.apiKey.key, `?cursor=${cursor}`)).status).toBe(200);
    const position = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const tampered = [
      'not a cursor',
      cursor.slice(0, -3),
      `${cursor}x`,
      encode({ ...position, id: 'gen_short' }),
      encode({ ...position, created_at: 'yesterday' }),
      encode({ ...position, created_at: position.created_at.replace('Z', '+00:00') }),
      encode([position.created_at, position.id]),
      encode(null),
      'x'.repeat(201),
    ];
    for (const bad of tampered) {
      const refused = await list(owner.apiKey.key, `?cursor=${encodeURIComponent(bad)}`);
      expect(refused, bad).toMatchObject({ status: 400, body: { error: 'validation_error' } });
      expect(refused.body.message).toMatch(/cursor/);
    }
  });

  it('pages through every task that existed when paging began, once each, while tasks are being created', async () => {
    const owner = await createDeveloperWithKey(stack.database.prisma);
    const other = await createDeveloperWithKey(stack.database.prisma);
    // Some created in the same millisecond, so the id decides their order.
    const now = Date.now();
    const existing = await tasksAt(
      owner.developerId,
      Array.from({ length: 40 }, (_, index) => new Date(now - 1000 + Math.floor(index / 3))),
    );
    let creating = true;
    const created: string[] = [];
    const creator = (async () => {
      while (creating) {
        created.push(await taskOf(owner.developerId, 'queued'));
        await taskOf(other.developerId, 'queued');
      }
    })();
    // A pause between pages lets the creator add tasks while the pages are read.
    const paged = await allPages(owner.apiKey.key, 'limit=5', () => new Promise((done) => setTimeout(done, 20)));
    creating = false;
    await creator;
    expect(created.length).toBeGreaterThan(0);
    expect(new Set(paged).size).toBe(paged.length);
    expect(paged.filter((id) => existing.includes(id))).toEqual(existing);
    // What else was listed was created meanwhile, by this account.
    expect(paged.filter((id) => !existing.includes(id)).every((id) => created.includes(id))).toBe(true);
  });
});

describe('the list_generations MCP tool', () => {
  const callTool = async (token: string, name: string, args: Record<string, unknown>) =>
    (await (await connect(token)).callTool({ name, arguments: args })) as CallToolResult;

  it('is listed read-only, with the query of GET /generations as its arguments', async () => {
    const { tools } = await (await connect()).listTools();
    const tool = tools.find((listed) => listed.name === 'list_generations')!;
    expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(Object.keys(tool.inputSchema.properties!).sort()).toEqual(
      [
        'created_after',
        'created_before',
        'cursor',
        'idempotency_key',
        'key_id',
        'limit',
        'model',
        'status',
        'type',
      ].sort(),
    );
  });

  it('answers the same pages as GET /generations, and refuses a bad cursor as the API does', async () => {
    const owner = await createDeveloperWithKey(stack.database.prisma);
    await tasksAt(owner.developerId, [new Date(Date.now() - 3000), new Date(Date.now() - 2000)]);
    const first = await callTool(owner.apiKey.key, 'list_generations', { limit: 1 });
    expect(first.isError).toBeFalsy();
    expect(first.structuredContent).toEqual((await list(owner.apiKey.key, '?limit=1')).body);
    const cursor = (first.structuredContent as { next_cursor: string }).next_cursor;
    const second = await callTool(owner.apiKey.key, 'list_generations', { limit: 1, cursor });
    expect(second.structuredContent).toEqual((await list(owner.apiKey.key, `?limit=1&cursor=${cursor}`)).body);
    const refused = await callTool(owner.apiKey.key, 'list_generations', { cursor: 'garbled' });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({
      error: 'validation_error',
      message: expect.stringMatching(/cursor/),
    });
    // Without a key: HTTP 401, so a host starts OAuth.
    await expect(callTool(undefined as never, 'list_generations', {})).rejects.toMatchObject({ code: 401 });
  });
});
