// POST /agents/register, GET /agents/balance, PATCH /agents/webhook over real HTTP and PostgreSQL.
import { describe, expect, it } from 'vitest';
import { developmentDepositXpub } from '../../src/config/config.ts';
import { charge, credit, reserve } from '../../src/ledger/ledger.ts';
import { deriveDepositAddress } from '../../src/deposits/addresses.ts';
import { unreadChains, useAppWithDatabase } from '../helpers/app.ts';
import { createDeveloperWithKey } from '../helpers/accounts.ts';
import { checkedBalance } from '../helpers/balance.ts';
import { call, freshClientAddress } from '../helpers/http.ts';

// Each request speaks from its own client address (X-Forwarded-For from loopback) unless a test names one, so the
// per-address guardrails do not mix.
const stack = useAppWithDatabase({
  config: {
    server: { trustProxy: 'loopback' },
    accounts: { registrationCapPerAddress: 3, trialCreditsPerAddressPerDay: 1 },
    ...unreadChains,
  },
});

const register = (body: unknown, from?: string) => call(stack, 'POST', '/agents/register', { body, from });

describe('POST /agents/register', () => {
  it('creates an agent: 201 with a key shown once, its own deposit addresses and the trial credit', async () => {
    const { status, body } = await register({
      agent_name: 'Ada',
      agent_platform: 'openclaw',
      agent_version: '1.2.3',
      source: 'docs',
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({
      agent_id: expect.stringMatching(/^agt_[0-9A-Za-z]{22}$/),
      api_key: expect.stringMatching(/^rf_[0-9A-Za-z]{43}$/),
      asset: 'USDC',
      balance: '1.00',
      starting_balance: '1.00',
      trial_credit_applied: true,
      webhook_url: null,
      webhook_secret: null,
    });
    expect(Object.keys(body.deposit_addresses).sort()).toEqual(['base', 'ethereum', 'polygon']);
    const account = await stack.database.prisma.account.findUniqueOrThrow({ where: { id: body.agent_id } });
    expect(body.deposit_addresses.base).toBe(deriveDepositAddress(developmentDepositXpub, account.depositIndex!));
    expect(account.depositAddress).toBe(body.deposit_addresses.base.toLowerCase());
    expect(account).toMatchObject({
      kind: 'agent',
      name: 'Ada',
      platform: 'openclaw',
      platformVersion: '1.2.3',
      source: 'docs',
      status: 'active',
    });
    expect(body.activation_tips.length).toBeGreaterThanOrEqual(3);
    expect(body.next_steps.join(' ')).toMatch(/quote.*generations.*poll_url/s);
    expect(body.next_steps.join(' ')).toContain('/docs');
  });

  it('gives every agent a different deposit address', async () => {
    const [first, second] = await Promise.all([register({ agent_name: 'one' }), register({ agent_name: 'two' })]);
    expect(first.body.deposit_addresses.base).not.toBe(second.body.deposit_addresses.base);
  });

  it('returns a Standard Webhooks secret when a webhook is given', async () => {
    const { status, body } = await register({ agent_name: 'hooked', webhook_url: 'https://agent.example/hook' });
    expect(status).toBe(201);
    expect(body.webhook_url).toBe('https://agent.example/hook');
    expect(body.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
  });

  it('names the signature scheme beside the secret exactly as PATCH /agents/webhook does, and only with one', async () => {
    const { body } = await register({ agent_name: 'signed', webhook_url: 'https://agent.example/hook' });
    expect(body).toMatchObject({ signature_header: 'webhook-signature', signature_algorithm: 'hmac-sha256' });
    const patched = await call(stack, 'PATCH', '/agents/webhook', {
      key: body.api_key,
      body: { webhook_url: 'https://agent.example/hook' },
    });
    expect({
      signature_header: patched.body.signature_header,
      signature_algorithm: patched.body.signature_algorithm,
    }).toEqual({ signature_header: body.signature_header, signature_algorithm: body.signature_algorithm });
    const { body: bare } = await register({ agent_name: 'unsigned' });
    expect(bare).not.toHaveProperty('signature_header');
    expect(bare).not.toHaveProperty('signature_algorithm');
  });

  it('grants the trial once per address per day, then says so', async () => {
    const from = freshClientAddress();
    const first = await register({ agent_name: 'first' }, from);
    const second = await register({ agent_name: 'second' }, from);
    expect(first.body).toMatchObject({ trial_credit_applied: true, starting_balance: '1.00' });
    expect(second.body).toMatchObject({ trial_credit_applied: false, starting_balance: '0.00', balance: '0.00' });
    expect(second.body.activation_tips.join(' ')).toMatch(/No trial credit/);
  });

  it('counts the trial per IPv6 /48: another /64 of it gets none, another /48 gets its own', async () => {
    const first = await register({ agent_name: 'first' }, '2001:db8:a1:1::1');
    const sameSite = await register({ agent_name: 'same site' }, '2001:db8:a1:ffff::2');
    const otherSite = await register({ agent_name: 'other site' }, '2001:db8:a2:1::1');
    expect([first, sameSite, otherSite].map(({ status }) => status)).toEqual([201, 201, 201]);
    expect(first.body).toMatchObject({ trial_credit_applied: true, starting_balance: '1.00' });
    expect(sameSite.body).toMatchObject({ trial_credit_applied: false, starting_balance: '0.00' });
    expect(sameSite.body.activation_tips.join(' ')).toMatch(/this network address has used its trial allowance/);
    expect(otherSite.body).toMatchObject({ trial_credit_applied: true, starting_balance: '1.00' });
  });

  it('caps registrations per address with 429 registration_capped, and creates nothing', async () => {
    const from = freshClientAddress();
    for (let i = 0; i < 3; i++) expect((await register({ agent_name: `agent ${i}` }, from)).status).toBe(201);
    const before = await stack.database.prisma.account.count();
    const capped = await register({ agent_name: 'one too many' }, from);
    expect(capped.status).toBe(429);
    expect(capped.body).toEqual({
      error: 'registration_capped',
      message: expect.stringMatching(
        /^Registration capped: at most 3 registrations per client address every 60 minutes/,
      ),
    });
    expect(await stack.database.prisma.account.count()).toBe(before);
  });

  it('holds the cap under concurrent registrations from one address', async () => {
    const from = freshClientAddress();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => register({ agent_name: `racer ${i}` }, from)),
    );
    expect(results.filter((result) => result.status === 201)).toHaveLength(3);
    expect(results.filter((result) => result.status === 429)).toHaveLength(5);
    expect(results.filter((result) => result.body.trial_credit_applied)).toHaveLength(1);
  });

  const at = (length: number) => 'x'.repeat(length);
  it.each([
    [{ agent_name: at(3) }, 201, null],
    [{ agent_name: at(50) }, 201, null],
    [{ agent_name: at(2) }, 400, /agent_name: Too small: expected string to have >=3 characters/],
    [{ agent_name: at(51) }, 400, /agent_name: Too big: expected string to have <=50 characters/],
    [{}, 400, /agent_name: Invalid input: expected string, received undefined/],
    [{ agent_name: 42 }, 400, /agent_name: Invalid input: expected string, received number/],
    [{ agent_name: 'bot', source: at(100) }, 201, null],
    [{ agent_name: 'bot', source: at(101) }, 400, /source: Too big/],
    [{ agent_name: 'bot', agent_platform: 'generic' }, 201, null],
    [{ agent_name: 'bot', agent_platform: at(100) }, 201, null],
    [{ agent_name: 'bot', agent_platform: at(101) }, 400, /agent_platform: Too big/],
    [{ agent_name: 'bot', agent_version: at(50) }, 201, null],
    [{ agent_name: 'bot', agent_version: at(51) }, 400, /agent_version: Too big/],
    [{ agent_name: 'bot', webhook_url: 'http://agent.example/hook' }, 201, null],
    [{ agent_name: 'bot', webhook_url: 'ftp://agent.example/hook' }, 400, /webhook_url: must be an http\(s\) URI/],
    [{ agent_name: 'bot', webhook_url: 'not a url' }, 400, /webhook_url: must be an http\(s\) URI/],
  ])('%o → %i', async (requestBody, status, message) => {
    const { status: actual, body } = await register(requestBody);
    expect(actual).toBe(status);
    if (message) expect(body).toEqual({ error: 'validation_error', message: expect.stringMatching(message) });
  });
});

describe('the server-wide trial budget (TRIAL_CREDITS_PER_DAY)', () => {
  const budgeted = useAppWithDatabase({
    config: { server: { trustProxy: 'loopback' }, accounts: { trialCreditsPerDay: 2 }, ...unreadChains },
  });
  const registerThere = (name: string) => call(budgeted, 'POST', '/agents/register', { body: { agent_name: name } });

  it("grants trials until the day's budget is spent, even under concurrent registrations, then none from any address", async () => {
    const racers = await Promise.all(Array.from({ length: 6 }, (_, i) => registerThere(`racer ${i}`)));
    expect(racers.every(({ status }) => status === 201)).toBe(true);
    expect(racers.filter(({ body }) => body.trial_credit_applied)).toHaveLength(2);
    const late = await registerThere('late');
    expect(late.body).toMatchObject({ trial_credit_applied: false, starting_balance: '0.00', balance: '0.00' });
    expect(late.body.activation_tips.join(' ')).toMatch(/today's trial credits on this server are used up/);
    // Money: exactly two trial credits were paid out, and every balance is its ledger's sum.
    const prisma = budgeted.database.prisma;
    expect(await prisma.ledgerEntry.count({ where: { kind: 'trial_credit' } })).toBe(2);
    for (const { body } of [...racers, late]) {
      await checkedBalance(prisma, body.agent_id);
    }
  });
});

describe('TRIAL_CREDITS_PER_DAY=0', () => {
  const closed = useAppWithDatabase({
    config: { server: { trustProxy: 'loopback' }, accounts: { trialCreditsPerDay: 0 }, ...unreadChains },
  });

  it('disables trials: a first registration from a new address starts at zero, and is told so', async () => {
    const { status, body } = await call(closed, 'POST', '/agents/register', { body: { agent_name: 'first' } });
    expect(status).toBe(201);
    expect(body).toMatchObject({ trial_credit_applied: false, starting_balance: '0.00' });
    expect(body.activation_tips.join(' ')).toMatch(/this server gives no trial credit/);
    expect(await closed.database.prisma.ledgerEntry.count()).toBe(0);
  });
});

describe('GET /agents/balance', () => {
  it('reports the balance, what running tasks hold and what is available, usage from the ledger and deposits', async () => {
    const { body: agent } = await register({ agent_name: 'spender', webhook_url: 'https://spender.example/hook' });
    const accountId = agent.agent_id;
    await credit(stack.database.prisma, {
      accountId,
      amount: 4_000_000n,
      kind: 'deposit',
      idempotencyKey: `deposit:base:0x1:${accountId}`,
    });
    await stack.database.prisma.deposit.create({
      data: {
        id: 'dep_1',
        accountId,
        chain: 'base',
        txHash: `0x${'1'.repeat(64)}`,
        transferIndex: 0,
        logIndex: 0,
        amount: 4_000_000n,
        status: 'credited',
      },
    });
    await reserve(stack.database.prisma, {
      accountId,
      amount: 500_000n,
      taskId: 'gen_1',
      idempotencyKey: 'gen_1:reserve',
    });
    await charge(stack.database.prisma, {
      accountId,
      amount: 35_000n,
      taskId: 'gen_1',
      idempotencyKey: 'gen_1:charge',
    });
    await reserve(stack.database.prisma, {
      accountId,
      amount: 250_000n,
      taskId: 'gen_2',
      idempotencyKey: 'gen_2:reserve',
    });

    const { status, body } = await call(stack, 'GET', '/agents/balance', { key: agent.api_key });
    expect(status).toBe(200);
    expect(body).toEqual({
      agent_id: accountId,
      agent_name: 'spender',
      balance: '4.965', // 1.00 trial + 4.00 deposit − 0.035 charged
      balance_reserved: '0.25', // held by gen_2
      balance_available: '4.715',
      status: 'active',
      deposit_addresses: agent.deposit_addresses,
      asset: 'USDC',
      webhook_url: 'https://spender.example/hook',
      usage: { total_requests: 1, total_usd_spent: '0.035' },
      recent_deposits: [
        {
          id: 'dep_1',
          chain: 'base',
          amount_usd: '4.00',
          tx_hash: `0x${'1'.repeat(64)}`,
          status: 'credited',
          created_at: expect.any(String),
          // Credited: every confirmation base needs (BASE_CONFIRMATIONS' default), counted without reading the chain.
          confirmations: 10,
          confirmations_required: 10,
        },
      ],
    });
  });
});

describe('balance on GET /agents/balance and GET /account/balance', () => {
  it('means the same: funds held, reservations included, with balance_reserved and balance_available beside', async () => {
    const { body: agent } = await register({ agent_name: 'twin' });
    const developer = await createDeveloperWithKey(stack.database.prisma);
    // The same money for both: the agent's 1.00 trial matched for the developer, 2.00 more each, a task running each.
    const accounts = [agent.agent_id, developer.developerId];
    await credit(stack.database.prisma, {
      accountId: developer.developerId,
      amount: 1_000_000n,
      kind: 'adjustment',
      idempotencyKey: `trial-equivalent:${developer.developerId}`,
    });
    for (const accountId of accounts) {
      await credit(stack.database.prisma, {
        accountId,
        amount: 2_000_000n,
        kind: 'adjustment',
        idempotencyKey: `topup:${accountId}`,
      });
      await reserve(stack.database.prisma, {
        accountId,
        amount: 600_000n,
        taskId: `gen_running_${accountId}`,
        idempotencyKey: `gen_running_${accountId}:reserve`,
      });
    }
    const agentView = (await call(stack, 'GET', '/agents/balance', { key: agent.api_key })).body;
    const developerView = (await call(stack, 'GET', '/account/balance', { key: developer.apiKey.key })).body;
    const amounts = ({ balance, balance_reserved, balance_available }: Record<string, string>) => ({
      balance,
      balance_reserved,
      balance_available,
    });
    expect(amounts(agentView)).toEqual({ balance: '3.00', balance_reserved: '0.60', balance_available: '2.40' });
    expect(amounts(developerView)).toEqual(amounts(agentView));
  });
});

describe('PATCH /agents/webhook', () => {
  it('sets the URL and rotates the secret on every call', async () => {
    const { body: agent } = await register({ agent_name: 'rotator', webhook_url: 'https://old.example/hook' });
    const first = await call(stack, 'PATCH', '/agents/webhook', {
      key: agent.api_key,
      body: { webhook_url: 'https://new.example/hook' },
    });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      success: true,
      webhook_url: 'https://new.example/hook',
      webhook_secret: expect.stringMatching(/^whsec_/),
      signature_header: 'webhook-signature',
      signature_algorithm: 'hmac-sha256',
      message: expect.stringMatching(/rotated/),
    });
    expect(first.body.webhook_secret).not.toBe(agent.webhook_secret);
    const second = await call(stack, 'PATCH', '/agents/webhook', {
      key: agent.api_key,
      body: { webhook_url: 'https://new.example/hook' },
    });
    expect(second.body.webhook_secret).not.toBe(first.body.webhook_secret);
    const account = await stack.database.prisma.account.findUniqueOrThrow({ where: { id: agent.agent_id } });
    expect(account).toMatchObject({
      webhookUrl: 'https://new.example/hook',
      webhookSecret: second.body.webhook_secret,
    });
  });

  it.each([
    [{ webhook_url: 'ftp://x.example' }, /webhook_url: must be an http\(s\) URI/],
    [{ webhook_url: 'javascript:alert(1)' }, /webhook_url: must be an http\(s\) URI/],
    [{ webhook_url: 'https://user:secret@hooks.example/h' }, /webhook_url: must not contain a user name or password/],
    [{}, /webhook_url: /],
  ])('answers 400 invalid_webhook_url for %o', async (requestBody, message) => {
    const { body: agent } = await register({ agent_name: 'hooker' });
    const { status, body } = await call(stack, 'PATCH', '/agents/webhook', { key: agent.api_key, body: requestBody });
    expect(status).toBe(400);
    expect(body).toEqual({ error: 'invalid_webhook_url', message: expect.stringMatching(message) });
  });
});

// The agent-only endpoints' rows of the spec's 401 and 403 (an agent key endpoint given a developer key, or none).
describe.each([
  { method: 'GET', path: '/agents/balance', body: undefined },
  { method: 'PATCH', path: '/agents/webhook', body: { webhook_url: 'https://x.example' } },
])('$method $path', ({ method, path, body }) => {
  it.each([
    {
      key: 'a developer key',
      status: 403,
      error: 'forbidden',
      message: 'This endpoint needs an agent key (rf_…); a developer key was given.',
    },
    {
      key: 'no key',
      status: 401,
      error: 'unauthorized',
      message: 'Missing API key: send it as `Authorization: Bearer <API key>`.',
    },
  ])('answers $status $error to $key', async ({ key, status, error, message }) => {
    const developer = await createDeveloperWithKey(stack.database.prisma);
    const response = await call(stack, method, path, {
      body,
      key: key === 'a developer key' ? developer.apiKey.key : undefined,
    });
    expect({ status: response.status, body: response.body }).toEqual({ status, body: { error, message } });
  });
});
