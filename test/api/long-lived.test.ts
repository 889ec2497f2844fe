// Requests held open are capped and bounded: event streams, `Prefer: wait` and MCP waits take slots per account, per
// client network (an IPv4 address or an IPv6 /48; 429 rate_limited with Retry-After past either, neither holding more
// than a tenth of the process's slots) and per process (503); a stream ends after its lifetime and resumes with
// Last-Event-ID where it ended; a revoked key's stream ends, and a wallet session's when its token expires; MCP waits
// stay well below the load balancer's timeout.
import { randomBytes } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../src/accounts/api-keys.ts';
import { tokenKeys } from '../../src/accounts/oauth/signing-secret.ts';
import { signWalletSession, walletSessionSeconds } from '../../src/accounts/wallet-sessions.ts';
import { walletAccountId } from '../../src/payments/methods/x402/paid-tasks.ts';
import { caddyConfig } from '../../cluster/caddy.ts';
import { createDeveloperWithKey } from '../helpers/accounts.ts';
import { startTestApp, type TestApp, useAppWithDatabase } from '../helpers/app.ts';
import { type OpenedEventStream, openEventStream } from '../helpers/event-stream.ts';
import { call, freshClientAddress } from '../helpers/http.ts';
import { useMcpClients } from '../helpers/mcp-client.ts';
import { createTaskRow } from '../helpers/task-rows.ts';

const caps = { perAccount: 2, perAddress: 3, perProcess: 100 };
// Known here, so a test can sign a wallet session as the app would.
const tokenSecret = randomBytes(32).toString('hex');
// Heartbeats often and keys read at every look, so a revocation shows within a fraction of a second.
const stack = useAppWithDatabase({
  config: {
    server: { trustProxy: 'loopback' },
    longLived: caps,
    events: { heartbeatMs: 200 },
    accounts: { apiKeyCacheSeconds: 0 },
    oauth: { tokenSecret },
  },
});
// More apps on the same database: one whose process takes two held requests, one whose streams live 1.5 s, one whose
// process takes 20 while its account and address caps (50) are above a tenth of that.
let smallProcess: TestApp;
let shortStreams: TestApp;
let sharedProcess: TestApp;
beforeAll(async () => {
  smallProcess = await startTestApp({
    database: stack.database,
    config: { server: { trustProxy: 'loopback' }, longLived: { ...caps, perProcess: 2 } },
  });
  sharedProcess = await startTestApp({
    database: stack.database,
    config: { server: { trustProxy: 'loopback' }, longLived: { perAccount: 50, perAddress: 50, perProcess: 20 } },
  });
  shortStreams = await startTestApp({
    database: stack.database,
    config: { events: { heartbeatMs: 200, maxStreamMs: 1_500 } },
  });
});
afterAll(async () => {
  await smallProcess?.close();
  await shortStreams?.close();
  await sharedProcess?.close();
});

const connect = useMcpClients(() => stack.app.url);

const open: OpenedEventStream[] = [];
const stream = async (server: { app: { url: string } }, key: string, options: { from?: string } = {}) => {
  const opened = await openEventStream(server, '/events', { key, ...options });
  open.push(opened);
  return opened;
};
afterAll(() => open.forEach((opened) => opened.close()));

const developer = async () => {
  const { developerId, apiKey } = await createDeveloperWithKey(stack.database.prisma);
  return { accountId: developerId, key: apiKey.key, keyId: apiKey.id };
};

const expectRefused = (answer: { status: number; headers: Headers; body?: unknown }, by: RegExp) => {
  expect(answer.status).toBe(429);
  expect(answer.headers.get('retry-after')).toBe('10');
  expect(answer.body).toEqual({ error: 'rate_limited', message: expect.stringMatching(by) });
};

describe('caps on requests held open', () => {
  it('per account: event streams and Prefer: wait count together; a closed one frees its slot', async () => {
    const { accountId, key } = await developer();
    const first = await stream(stack, key);
    const second = await stream(stack, key);
    expect([first.status, second.status]).toEqual([200, 200]);
    expectRefused(await stream(stack, key), /at most 2 at once for this account/);
    const taskId = await createTaskRow(stack.database.prisma, accountId, 'processing');
    const waiting = await call(stack, 'GET', `/generations/${taskId}`, { key, headers: { Prefer: 'wait=1' } });
    expectRefused(waiting, /for this account/);
    // A read that does not wait holds nothing.
    expect((await call(stack, 'GET', `/generations/${taskId}`, { key })).status).toBe(200);
    first.close();
    await expect.poll(async () => (await stream(stack, key)).status, { timeout: 30_000 }).toBe(200);
  });

  it('per client address, whatever the accounts', async () => {
    const from = freshClientAddress();
    for (let index = 0; index < 3; index += 1) {
      expect((await stream(stack, (await developer()).key, { from })).status).toBe(200);
    }
    expectRefused(await stream(stack, (await developer()).key, { from }), /at most 3 at once from this address/);
  });

  it('per client network: IPv6 addresses count per /48, as the trial does, whatever their /64', async () => {
    for (const subnet of [1, 2, 3]) {
      const from = `2001:db8:55:${subnet}::${subnet}`;
      expect((await stream(stack, (await developer()).key, { from })).status).toBe(200);
    }
    const sameSite = await stream(stack, (await developer()).key, { from: '2001:db8:55:ffff::1' });
    expectRefused(sameSite, /at most 3 at once from this address/);
    expect((await stream(stack, (await developer()).key, { from: '2001:db8:56:1::1' })).status).toBe(200);
  });

  it("an account, or a network, holds at most a tenth of a process's slots, whatever its own cap", async () => {
    const server = { app: sharedProcess };
    const { key } = await developer();
    for (let index = 0; index < 2; index += 1) expect((await stream(server, key)).status).toBe(200);
    expectRefused(await stream(server, key), /at most 2 at once for this account/);
    const from = freshClientAddress();
    for (let index = 0; index < 2; index += 1)
      expect((await stream(server, (await developer()).key, { from })).status).toBe(200);
    expectRefused(await stream(server, (await developer()).key, { from }), /at most 2 at once from this address/);
    // Slots are left for everyone else.
    expect((await stream(server, (await developer()).key)).status).toBe(200);
  });

  it('per process: 503 with Retry-After, so a balancer tries another', async () => {
    const server = { app: smallProcess };
    for (let index = 0; index < 2; index += 1) expect((await stream(server, (await developer()).key)).status).toBe(200);
    const refused = await stream(server, (await developer()).key);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('10');
    expect(refused.body).toEqual({ error: 'service_unavailable', message: expect.stringMatching(/try again/) });
  });

  it('an MCP wait takes a slot; the same call without a wait does not', async () => {
    const { accountId, key } = await developer();
    await stream(stack, key);
    await stream(stack, key);
    const taskId = await createTaskRow(stack.database.prisma, accountId, 'processing');
    const client = await connect(key);
    const waiting = (await client.callTool({
      name: 'get_generation',
      arguments: { id: taskId, wait_seconds: 2 },
    })) as CallToolResult;
    expect(waiting.isError).toBe(true);
    expect(waiting.structuredContent).toEqual({ error: 'rate_limited', message: expect.stringMatching(/account/) });
    const read = (await client.callTool({ name: 'get_generation', arguments: { id: taskId } })) as CallToolResult;
    expect(read.structuredContent).toMatchObject({ id: taskId, status: 'processing' });
  });
});

describe('bounds on a stream', () => {
  it('ends after its lifetime; resumed with Last-Event-ID, it carries on from where it ended', async () => {
    const { accountId, key } = await developer();
    const server = { app: shortStreams };
    const before = await stream(server, key);
    const first = await createTaskRow(stack.database.prisma, accountId, 'queued');
    const seen = [await before.next()];
    seen.push(...(await before.rest(30_000)));
    expect(seen.map((event) => [event.event, event.data.id])).toEqual([['queued', first]]);
    // Happens while the client is away; the resumed stream sends it and nothing before it.
    const second = await createTaskRow(stack.database.prisma, accountId, 'queued');
    const after = await openEventStream(server, '/events', { key, lastEventId: seen.at(-1)!.id });
    open.push(after);
    const next = await after.next();
    expect([next.event, next.data.id]).toEqual(['queued', second]);
    expect(BigInt(next.id!)).toBeGreaterThan(BigInt(seen.at(-1)!.id!));
  });

  it('ends when its key is revoked', async () => {
    const { key, keyId } = await developer();
    const opened = await stream(stack, key);
    expect(opened.status).toBe(200);
    await revokeApiKey(stack.database.prisma, keyId);
    // Open, it would run until the test's own limit; checked at each 200 ms heartbeat, it ends within moments.
    await expect(opened.rest(30_000)).resolves.toEqual([]);
  });

  it("opened with a wallet's session token ends when the token expires", async () => {
    const { prisma } = stack.database;
    const payer = `0x${randomBytes(20).toString('hex')}`;
    const accountId = walletAccountId(payer);
    await prisma.account.create({ data: { id: accountId, kind: 'wallet', name: payer, balance: { create: {} } } });
    // Signed for the origin the stream is opened at, as the app signs for the loopback address it is asked at.
    const site = { issuer: new URL(stack.app.url).origin, keys: tokenKeys(tokenSecret) };
    // A session signed an hour less eight seconds ago: eight seconds left to open the stream.
    const signedAt = new Date(Date.now() - (walletSessionSeconds - 8) * 1000);
    const { token, expiresAt } = await signWalletSession(site, accountId, signedAt);
    const opened = await stream(stack, token);
    expect(opened.status).toBe(200);
    // Open, it would run until the test's own limit; checked at each 200 ms heartbeat, it ends once the token expires.
    await expect(opened.rest(30_000)).resolves.toEqual([]);
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt.getTime() - 1_000);
  });
});

describe('MCP waits', () => {
  it("keep their response open with a comment at the event streams' heartbeat", async () => {
    const { accountId, key } = await developer();
    const id = await createTaskRow(stack.database.prisma, accountId, 'processing');
    const response = await fetch(`${stack.app.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'get_generation', arguments: { id, wait_seconds: 3 } },
      }),
    });
    const text = await response.text();
    // A three-second wait with 200 ms heartbeats; the transport's own default (15 s) would send none.
    expect(text.match(/^: ?keep-?alive$/gm)?.length ?? 0).toBeGreaterThanOrEqual(2);
    expect(text).toContain('"status\\":\\"processing');
  });

  it("are bounded well below the cluster balancer's timeouts", async () => {
    // Every timeout of the balancer's configuration counted in minutes: those a held request runs into.
    const config = JSON.stringify(caddyConfig({ host: '127.0.0.1', port: 1, backends: [] }));
    const timeouts = [...config.matchAll(/"\w+_timeout":"(\d+)m"/g)];
    expect(timeouts.length).toBeGreaterThan(0);
    const shortestSeconds = Math.min(...timeouts.map((match) => Number(match[1]) * 60));
    const client = await connect((await developer()).key);
    const { tools } = await client.listTools();
    for (const name of ['generate', 'get_generation']) {
      const tool = tools.find((listed) => listed.name === name)!;
      const { maximum } = (tool.inputSchema.properties as Record<string, { maximum: number }>).wait_seconds!;
      expect(maximum).toBeLessThanOrEqual(shortestSeconds / 2);
    }
  });
});
