// text-to-text through the real stack against a stand-in OpenAI-compatible server: messages folded into a
// system prompt and a transcript, parameters passed on, the answer stored as .txt, tokens used charged.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../activities/index.ts';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import { priceRequest } from '../../src/catalog/pricing.ts';
import { loadConfig } from '../../src/config.ts';
import { formatUsd } from '../../src/money.ts';
import { credit } from '../../src/services/ledger.ts';
import { createLocalStorage } from '../../src/storage/local-storage.ts';
import { createDeveloperWithKey } from '../helpers/accounts.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { freePort } from '../helpers/ports.ts';
import { useDevServerAndDatabase } from '../helpers/stack.ts';
import { bundleWorkflows, uniqueTaskQueue } from '../helpers/temporal.ts';
import { type OpenAIStandIn, startOpenAIStandIn } from '../stand-ins/openai-compatible.ts';

const stack = useDevServerAndDatabase();
const catalog = loadCatalog();
let upstream: OpenAIStandIn;
let app: TestApp;
let worker: Worker;
let workerRun: Promise<void>;
let filesDir: string;
let key: string;
let accountId: string;

beforeAll(async () => {
  upstream = await startOpenAIStandIn();
  const port = await freePort();
  const config = { ...loadConfig({ NODE_ENV: 'test' }, []), PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, OPENAI_BASE_URL: upstream.baseUrl, OPENAI_API_KEY: 'sk-upstream-test' };
  filesDir = await mkdtemp(join(tmpdir(), 'gateway-text-'));
  const storage = createLocalStorage(filesDir, config.PUBLIC_BASE_URL);
  const taskQueue = uniqueTaskQueue('text');
  worker = await Worker.create({
    connection: stack.env.nativeConnection, taskQueue, workflowBundle: await bundleWorkflows(),
    activities: createActivities({ prisma: stack.database.prisma, catalog, storage, config }),
  });
  workerRun = worker.run();
  app = await startTestApp({ prisma: stack.database.prisma, config, catalog, storage, port, temporal: { client: stack.env.client, taskQueue } });
  const developer = await createDeveloperWithKey(stack.database.prisma);
  key = developer.apiKey.key;
  accountId = developer.developerId;
  await credit(stack.database.prisma, { accountId, amount: 5_000_000n, kind: 'adjustment', idempotencyKey: `topup:${accountId}` });
});

afterAll(async () => {
  await app?.close();
  worker?.shutdown();
  await workerRun;
  await upstream?.close();
  await rm(filesDir, { recursive: true, force: true });
});

async function generate(body: object) {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  const created = await fetch(`${app.url}/api/v1/generations`, { method: 'POST', headers, body: JSON.stringify(body) });
  expect(created.status).toBe(202);
  const { poll_url: pollUrl } = (await created.json()) as { poll_url: string };
  const deadline = Date.now() + 30_000;
  for (;;) {
    const task = (await (await fetch(`${app.url}${pollUrl}`, { headers })).json()) as any;
    if (task.status === 'completed' || task.status === 'failed') return task;
    if (Date.now() > deadline) throw new Error(`still ${task.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const balance = async () => (await stack.database.prisma.balance.findUniqueOrThrow({ where: { accountId } })).balance;

describe('text-to-text', () => {
  it('folds messages, passes parameters, stores the answer as .txt and charges the tokens used', async () => {
    const before = await balance();
    const task = await generate({
      type: 'text-to-text', model: 'openai/qwen3-235b', max_tokens: 200, temperature: 0.2, top_p: 0.9, top_k: 40,
      repetition_penalty: 1.1, enable_thinking: false,
      messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello!' }, { role: 'user', content: 'Name a colour.' }],
    });
    expect(task).toMatchObject({ status: 'completed', type: 'text-to-text', output: expect.stringMatching(/\/files\/gen_\w+\/output-0\.txt$/) });

    const sent = upstream.requests.at(-1)!;
    expect(sent.authorization).toBe('Bearer sk-upstream-test');
    expect(sent.body).toMatchObject({
      model: 'qwen/qwen3-235b-a22b', max_tokens: 200, temperature: 0.2, top_p: 0.9, top_k: 40, repetition_penalty: 1.1,
      chat_template_kwargs: { enable_thinking: false },
      messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'User: Hi\n\nAssistant: Hello!\n\nUser: Name a colour.' }],
    });

    const text = await (await fetch(task.output)).text();
    expect(text).toBe('Echo: User: Hi\n\nAssistant: Hello!\n\nUser: Name a colour.');

    // Charged by the usage the server reported, not by the reservation (200 output tokens).
    const promptTokens = Math.ceil(JSON.stringify(sent.body.messages).length / 4);
    const completionTokens = Math.ceil(text.length / 4);
    const expected = priceRequest(catalog.get('openai/qwen3-235b')!, { usage: { input_tokens: promptTokens, output_tokens: completionTokens } }).micros;
    expect(before - (await balance())).toBe(expected);
    expect(task.cost).toBe(Number(formatUsd(expected)));
  });

  it('honours 429 Retry-After and 5xx by retrying, then completes', async () => {
    expect(await generate({ type: 'text-to-text', model: 'openai/kimi-k2', prompt: 'busy [[429]]' })).toMatchObject({ status: 'completed' });
    expect(await generate({ type: 'text-to-text', model: 'openai/kimi-k2', prompt: 'flaky [[500]]' })).toMatchObject({ status: 'completed' });
    expect(upstream.requests.filter((request) => /\[\[(429|500)\]\]/.test(request.body.messages.at(-1).content))).toHaveLength(4);
  });

  it.each([
    ['a request the provider rejects', '[[400]]', 'The provider rejected the request (HTTP 400).'],
    ['a content-policy refusal', '[[filter]]', 'The provider refused to answer this request (content policy).'],
  ])('%s fails the task with a clear error and refunds it', async (_name, marker, error) => {
    const before = await balance();
    expect(await generate({ type: 'text-to-text', model: 'openai/kimi-k2', prompt: `please ${marker}` })).toMatchObject({ status: 'failed', error, cost: 0 });
    expect(await balance()).toBe(before);
  });
});
