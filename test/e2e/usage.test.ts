// GET /usage through the real stack: tasks of every pricing unit (an OpenAI-compatible stand-in and the local
// engines), a failure refunded upstream and a cancellation; the totals equal the ledger's charges for the period to
// the micro-USD, the units are counted as the tasks were priced, a policy key sees its own, CSV and MCP agree.
import { createServer } from 'node:http';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { closeServer, listenLocally } from '../../harness/local-server.ts';
import { priceRequest } from '../../src/catalog/pricing.ts';
import { type InputServer, startInputServer, wavTone } from '../helpers/media.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { call, generateAndWait, postGeneration, waitForEnd } from '../helpers/http.ts';
import { useMcpClients } from '../helpers/mcp-client.ts';
import { type OpenAIStandIn, startOpenAIStandIn } from '../stand-ins/openai-compatible.ts';

let upstream: OpenAIStandIn;
let inputs: InputServer;
// An image that takes long to arrive: a task downloading it is still running when it is cancelled.
const slowImage = createServer((_req, res) => setTimeout(() => res.writeHead(404).end(), 4_000));
let slowImageUrl = '';

const gateway = useGateway(async () => {
  const png = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#3366ff' } })
    .png()
    .toBuffer();
  upstream = await startOpenAIStandIn({
    png,
    mp3: Buffer.from('ID3-stand-in-mp3-bytes'.repeat(20)),
    transcript: { text: 'Hello.', duration: 61.5 },
    mp4: Buffer.from('stand-in-mp4'),
  });
  inputs = await startInputServer({
    '/memo.wav': { body: wavTone(61.5), contentType: 'audio/wav' },
    '/photo.png': { body: png, contentType: 'image/png' },
  });
  slowImageUrl = `${(await listenLocally(slowImage)).url}/late.png`;
  return {
    providers: {
      openai: { baseUrl: upstream.baseUrl, apiKey: 'sk-upstream-test', timeoutSeconds: 1 },
      pollIntervalMs: 50,
    },
  };
});
afterAll(async () => {
  await upstream?.close();
  await inputs?.close();
  await closeServer(slowImage);
});

const developer = useFundedDeveloper(gateway);
const connect = useMcpClients(() => gateway.app.url);

const usage = (key: string, query: string) => call(gateway, 'GET', `/api/v1/usage?${query}`, { key });

/** The account's ledger over [from, to): what was charged, and what reservations gave back. */
async function ledgerOf(accountId: string, from: string, to: string) {
  const [row] = await gateway.database.prisma.$queryRaw<{ charged: bigint; released: bigint }[]>`
    SELECT coalesce(sum(-amount) FILTER (WHERE kind = 'charge'), 0)::bigint AS charged,
           coalesce(sum(-reserved_delta + amount) FILTER (WHERE kind IN ('charge', 'release')), 0)::bigint AS released
    FROM ledger_entries
    WHERE account_id = ${accountId} AND created_at >= ${new Date(from)} AND created_at < ${new Date(to)}`;
  return row!;
}

const micros = (usd: number) => BigInt(Math.round(usd * 1e6));

describe('usage', () => {
  let policyKey = '';
  let policyKeyId = '';

  beforeAll(async () => {
    const key = await call(gateway, 'POST', '/api/v1/keys', {
      key: developer.key,
      body: { name: 'ci job', policy: { budget: { amount: 1, window: 'month' } } },
    });
    expect(key.status).toBe(201);
    policyKey = key.body.api_key;
    policyKeyId = key.body.id;

    const generate = (body: object, key = developer.key) => generateAndWait(gateway, { key, body });
    const ended = await Promise.all([
      generate({ type: 'text-to-text', model: 'openai/kimi-k2', prompt: 'Say hello.', max_tokens: 20 }),
      generate({ type: 'text-to-image', model: 'openai/gpt-image-1', prompt: 'a kite', num_outputs: 2 }),
      generate({ type: 'text-to-audio', model: 'openai/tts-1', prompt: 'Good morning.' }),
      generate({ type: 'speech-to-text', model: 'openai/whisper-1', audio_url: `${inputs.url}/memo.wav` }),
      generate({ type: 'text-to-video', model: 'openai/sora-2', prompt: 'waves', duration: 8 }),
      generate({ type: 'upscale', model: 'local/lanczos', image_url: `${inputs.url}/photo.png` }, policyKey),
      generate({ type: 'text-to-audio', model: 'local/espeak', prompt: 'Hello there.' }, policyKey),
      // The upstream refuses it: failed, its reservation refunded.
      generate({ type: 'text-to-image', model: 'openai/gpt-image-1', prompt: 'a kite [[no-image]]' }),
    ]);
    expect(ended.map((task) => task.status)).toEqual([...Array(7).fill('completed'), 'failed']);

    const slow = await postGeneration(gateway, {
      key: developer.key,
      body: { type: 'upscale', model: 'local/lanczos', image_url: slowImageUrl },
    });
    await call(gateway, 'POST', `/api/v1/generations/${slow.body.id}/cancel`, { key: developer.key });
    expect(await waitForEnd(gateway, { key: developer.key, pollUrl: slow.body.poll_url })).toMatchObject({
      status: 'failed',
      error: 'cancelled',
    });
  }, 120_000);

  it("totals equal the ledger's charges and refunds for the period, with every pricing unit counted", async () => {
    const answer = await usage(developer.key, 'group_by=model');
    expect(answer.status).toBe(200);
    const { from, to, totals, rows } = answer.body;
    const ledger = await ledgerOf(developer.accountId, from, to);
    expect(micros(totals.cost)).toBe(ledger.charged);
    expect(micros(totals.refunded)).toBe(ledger.released);
    expect(totals).toMatchObject({ tasks: 9, completed: 7, failed: 1, cancelled: 1 });

    const byModel = Object.fromEntries(rows.map((row: { model: string }) => [row.model, row]));
    // The tokens counted are the tokens charged: priced again, they cost what the task was charged.
    const kimi = byModel['openai/kimi-k2'];
    expect(kimi.units.input_tokens).toBeGreaterThan(0);
    expect(kimi.units.output_tokens).toBeGreaterThan(0);
    const model = gateway.catalog.models.find((entry) => entry.id === 'openai/kimi-k2')!;
    expect(priceRequest(model, { usage: kimi.units }).micros).toBe(micros(kimi.cost));
    expect(byModel['openai/gpt-image-1']).toMatchObject({ tasks: 2, completed: 1, failed: 1, units: { images: 2 } });
    expect(byModel['openai/tts-1'].units).toEqual({ characters: 'Good morning.'.length });
    expect(byModel['openai/whisper-1'].units).toEqual({ input_minutes: 2 }); // 61.5 s: 2 minutes
    expect(byModel['openai/sora-2'].units).toEqual({ output_seconds: 8 });
    expect(byModel['local/lanczos']).toMatchObject({ tasks: 2, completed: 1, cancelled: 1, units: { requests: 1 } });
    expect(byModel['local/espeak'].units).toEqual({ characters: 'Hello there.'.length });
    // Each row's cost is what its tasks were charged.
    const charged = await gateway.database.prisma.task.groupBy({
      by: ['model'],
      where: { accountId: developer.accountId },
      _sum: { costCharged: true },
    });
    for (const { model, _sum } of charged) expect(micros(byModel[model].cost)).toBe(_sum.costCharged ?? 0n);
  });

  it('groups by day, type and key, and a key with a policy sees only the usage of its own tasks', async () => {
    const all = await usage(developer.key, 'group_by=key,day');
    expect(all.body.group_by).toEqual(['day', 'key']);
    const today = new Date().toISOString().slice(0, 10);
    const ofPolicyKey = all.body.rows.find((row: { key_id: string }) => row.key_id === policyKeyId);
    expect(ofPolicyKey).toMatchObject({ day: today, key_name: 'ci job', tasks: 2, completed: 2 });

    const own = await usage(policyKey, 'group_by=type');
    expect(own.status).toBe(200);
    expect(own.body.totals).toMatchObject({ tasks: 2, completed: 2, units: { requests: 1, characters: 12 } });
    expect(own.body.rows.map((row: { type: string }) => row.type)).toEqual(['text-to-audio', 'upscale']);
  });

  it('answers CSV with Accept: text/csv, the same rows as the JSON', async () => {
    const response = await fetch(`${gateway.app.url}/api/v1/usage?group_by=model`, {
      headers: { authorization: `Bearer ${developer.key}`, accept: 'text/csv' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(response.headers.get('vary')).toMatch(/Accept/i);
    const [header, ...lines] = (await response.text()).trim().split('\n');
    expect(header!.split(',').slice(0, 7)).toEqual([
      'model',
      'tasks',
      'completed',
      'failed',
      'cancelled',
      'cost_usd',
      'refunded_usd',
    ]);
    expect(lines).toHaveLength(7);
    expect(lines.find((line) => line.startsWith('openai/sora-2,'))).toMatch(/^openai\/sora-2,1,1,0,0,0\.80,0\.00,/);
  });

  it('get_usage over MCP answers what GET /usage answers', async () => {
    const client = await connect(policyKey);
    const result = (await client.callTool({ name: 'get_usage', arguments: { group_by: 'model' } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const rest = await usage(policyKey, 'group_by=model');
    expect(result.structuredContent).toEqual(rest.body);
  });

  it('refuses an unknown grouping and a period that ends before it starts, naming the field', async () => {
    const grouping = await usage(developer.key, 'group_by=day,hour');
    expect(grouping.status).toBe(400);
    expect(grouping.body).toMatchObject({ error: 'validation_error', message: expect.stringContaining('group_by') });
    const backwards = await usage(developer.key, 'from=2026-11-10&to=2026-11-01');
    expect(backwards.status).toBe(400);
    expect(backwards.body.message).toContain('to');
    const day = await usage(developer.key, 'from=2026-11-01&to=2026-11-01');
    expect([day.body.from, day.body.to]).toEqual(['2026-11-01T00:00:00.000Z', '2026-11-02T00:00:00.000Z']);
  });
});
