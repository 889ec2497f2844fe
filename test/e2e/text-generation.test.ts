// text-to-text through the real stack against a stand-in OpenAI-compatible server: messages folded into a
// system prompt and a transcript, parameters passed on, the answer stored as .txt, tokens used charged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { priceRequest } from '../../src/catalog/pricing.ts';
import { formatUsd } from '../../src/money.ts';
import { credit } from '../../src/services/ledger.ts';
import { createDeveloperWithKey } from '../helpers/accounts.ts';
import { generateAndWait, useGateway } from '../helpers/gateway.ts';
import { type OpenAIStandIn, startOpenAIStandIn } from '../stand-ins/openai-compatible.ts';

let upstream: OpenAIStandIn;
const gateway = useGateway(async () => {
  upstream = await startOpenAIStandIn();
  return { OPENAI_BASE_URL: upstream.baseUrl, OPENAI_API_KEY: 'sk-upstream-test' };
});
afterAll(() => upstream?.close());

let key: string;
let accountId: string;
beforeAll(async () => {
  const developer = await createDeveloperWithKey(gateway.database.prisma);
  key = developer.apiKey.key;
  accountId = developer.developerId;
  await credit(gateway.database.prisma, { accountId, amount: 5_000_000n, kind: 'adjustment', idempotencyKey: `topup:${accountId}` });
});

const generate = (body: object) => generateAndWait(gateway, key, body);
const balance = async () => (await gateway.database.prisma.balance.findUniqueOrThrow({ where: { accountId } })).balance;

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
    const expected = priceRequest(gateway.catalog.get('openai/qwen3-235b')!, { usage: { input_tokens: promptTokens, output_tokens: completionTokens } }).micros;
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
