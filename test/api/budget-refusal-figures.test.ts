// Issue 55 point 21a: a sub-key refused because a key above it has spent its budget is told so without that key's
// figures (its limit and spend are its maker's business), at admission as in a quote; a refusal by the caller's own
// budget still carries that budget's figures.
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.ts';
import { admitTask } from '../../src/generations/tasks.ts';
import { credit } from '../../src/ledger/ledger.ts';
import { createDeveloperWithKey } from '../helpers/accounts.ts';
import { useAppWithDatabase } from '../helpers/app.ts';
import { call } from '../helpers/http.ts';

const stack = useAppWithDatabase();
// A quote of "Hello." on local/espeak assumes a longer text: $0.001 (1,000 micro-USD), as the admissions below cost.
const speech = { type: 'text-to-audio', model: 'local/espeak', prompt: 'Hello.' } as const;
const aboveMessage =
  "This request costs $0.001; a key above this API key (the key that made it, or one above that) has no room left for it in its budget's current window.";

describe('budget_exceeded of a sub-key', () => {
  let accountId: string;
  let maker: { id: string; key: string };
  let sub: { id: string; key: string };
  const admit = (apiKeyId: string, costMicros: bigint) =>
    admitTask(stack.database.prisma, {
      taskId: newId('gen'),
      accountId,
      request: speech,
      costMicros,
      idempotencyKey: null,
      apiKeyId,
    });

  beforeAll(async () => {
    const developer = await createDeveloperWithKey(stack.database.prisma);
    accountId = developer.developerId;
    await credit(stack.database.prisma, {
      accountId,
      amount: 1_000_000n,
      kind: 'adjustment',
      idempotencyKey: `budget-refusal:${accountId}`,
    });
    const made = async (key: string, name: string) => {
      const answer = await call(stack, 'POST', '/keys', {
        key,
        body: { name, scopes: ['generate', 'read', 'keys'], policy: { budget: { amount: 0.01, window: 'day' } } },
      });
      expect(answer.status).toBe(201);
      return { id: answer.body.id as string, key: answer.body.api_key as string };
    };
    maker = await made(developer.apiKey.key, 'maker');
    sub = await made(maker.key, 'sub');
    // The maker spends $0.0095 of its $0.01 itself: $0.001 more fits the sub-key's budget, not the maker's.
    await admit(maker.id, 9_500n);
  });

  it("refused at admission by its maker's budget: no limit, spend or window of the maker's", async () => {
    const refused = await admit(sub.id, 1_000n).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({ code: 'budget_exceeded', message: aboveMessage });
    expect((refused as { details: unknown }).details).toEqual({});
  });

  it('quoted: the same refusal, without figures', async () => {
    const quote = await call(stack, 'POST', '/agents/quote', { key: sub.key, body: speech });
    expect(quote.status).toBe(200);
    expect(quote.body).toMatchObject({ key_allows: false });
    expect(quote.body.key_refusal).toEqual({ error: 'budget_exceeded', message: aboveMessage });
  });

  it("refused by its own budget: that budget's figures, as before", async () => {
    const refused = await admit(sub.id, 10_001n).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({
      code: 'budget_exceeded',
      message: expect.stringMatching(/^This request costs \$0\.010001; this API key's budget of \$0\.01 per day/),
      details: { limit: 0.01, spent: 0, reserved: 0, window: 'day' },
    });
  });
});
