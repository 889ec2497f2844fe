// genctl end to end: the real command line against a real database, and its keys on the real API.
import { describe, expect, it } from 'vitest';
import { useAppWithDatabase } from '../helpers/app.ts';
import { runGenctl } from '../helpers/genctl.ts';
import { call } from '../helpers/http.ts';

const stack = useAppWithDatabase();
const genctl = (...args: string[]) => runGenctl({ DATABASE_URL: stack.database.url }, args);

const balanceWith = (key: string) => call(stack, 'GET', '/account/balance', { key });

describe('genctl', () => {
  it('creates a developer whose key works on /account/balance, credits it once per key, and manages keys', async () => {
    const created = await genctl('developers', 'create', '--name', 'Acme Labs', '--tier', 'pro', '--json');
    expect(created.code).toBe(0);
    expect(created.json).toMatchObject({
      developer_id: expect.stringMatching(/^dev_/),
      tier: 'pro',
      api_key: expect.stringMatching(/^sk_/),
    });
    const developerId: string = created.json.developer_id;

    const first = await balanceWith(created.json.api_key);
    expect(first).toMatchObject({
      status: 200,
      body: { developer_id: developerId, tier: 'pro', balance: '0.00', currency: 'USD' },
    });

    const credited = await genctl(
      'accounts',
      'credit',
      developerId,
      '--amount',
      '12.5',
      '--reason',
      'launch promo',
      '--idempotency-key',
      'promo-1',
      '--json',
    );
    expect(credited.json).toEqual({
      account_id: developerId,
      amount: '12.50',
      applied: true,
      balance: '12.50',
      idempotency_key: 'promo-1',
    });
    const repeated = await genctl(
      'accounts',
      'credit',
      developerId,
      '--amount',
      '12.5',
      '--reason',
      'launch promo',
      '--idempotency-key',
      'promo-1',
    );
    expect(repeated.code).toBe(0);
    expect(repeated.stdout).toMatch(/Already credited under promo-1; nothing moved/);
    expect((await balanceWith(created.json.api_key)).body.balance).toBe('12.50');

    const shown = await genctl('accounts', 'show', developerId, '--json');
    expect(shown.json).toMatchObject({
      account_id: developerId,
      kind: 'developer',
      name: 'Acme Labs',
      balance: '12.50',
      available: '12.50',
    });

    const second = await genctl(
      'keys',
      'create',
      '--account',
      developerId,
      '--name',
      'ci',
      '--expires-in-days',
      '30',
      '--json',
    );
    expect(second.json).toMatchObject({
      name: 'ci',
      api_key: expect.stringMatching(/^sk_/),
      expires_at: expect.any(String),
    });
    expect((await balanceWith(second.json.api_key)).body.api_key).toMatchObject({ id: second.json.key_id, name: 'ci' });

    const revoked = await genctl('keys', 'revoke', second.json.key_id);
    expect(revoked.stdout).toMatch(/revoked/);
    // Refused within half a second: each api process counts revoked keys twice a second and then drops its cache.
    await expect
      .poll(async () => (await balanceWith(second.json.api_key)).body.message, { timeout: 7_000, interval: 250 })
      .toBe('This API key has been revoked.');

    const listed = await genctl('keys', 'list', '--account', developerId, '--json');
    expect(listed.json.keys.map((key: any) => [key.name, key.state])).toEqual([
      ['default', 'active'],
      ['ci', 'revoked'],
    ]);
    expect(JSON.stringify(listed.json)).not.toContain(created.json.api_key);
  });

  it.each([
    [['developers', 'create'], 2, /missing --name/],
    [
      ['developers', 'create', '--name', 'x', '--tier', 'gold'],
      2,
      /--tier must be one of free, starter, pro, enterprise/,
    ],
    [['accounts', 'credit', 'dev_nobody', '--amount', '1', '--reason', 'x'], 1, /no account dev_nobody/],
    [['accounts', 'show', 'dev_nobody'], 1, /no account dev_nobody/],
    [['keys', 'revoke', 'key_nothing'], 1, /no key key_nothing/],
    [['fly', 'away'], 2, /unknown command "fly away"/],
    [['developers', 'create', '--colour', 'red'], 2, /Unknown option '--colour'/],
  ])('genctl %j exits %i with a clear message', async (args, code, message) => {
    const result = await genctl(...args);
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
  });

  it('creates a key with a policy from flags, which the API then enforces', async () => {
    const created = await genctl('developers', 'create', '--name', 'Policies', '--json');
    const args = [
      '--budget',
      '5/day',
      '--models',
      'local/espeak',
      '--max-cost-per-task',
      '0.10',
      '--scopes',
      'generate,read',
    ];
    const key = await genctl(
      'keys',
      'create',
      '--account',
      created.json.developer_id,
      '--name',
      'tts',
      ...args,
      '--json',
    );
    expect(key.json).toMatchObject({
      scopes: ['generate', 'read'],
      policy: { budget: { amount_micros: '5000000', window: 'day' }, models: ['local/espeak'] },
    });
    const current = await call(stack, 'GET', '/api/v1/keys/current', { key: key.json.api_key });
    expect(current.body).toMatchObject({
      scopes: ['generate', 'read'],
      policy: { budget: { amount: 5, window: 'day' }, models: ['local/espeak'], max_cost_per_task: 0.1 },
      remaining: 5,
    });
    for (const [flag, value] of [
      ['--budget', '5/year'],
      ['--budget', 'lots/day'],
      ['--scopes', 'admin'],
      ['--rate-limit-per-minute', '0'],
    ]) {
      const refused = await genctl('keys', 'create', '--account', created.json.developer_id, flag!, value!);
      expect(refused.code, `${flag} ${value}`).toBe(2);
      expect(refused.stderr).toContain(flag);
    }
  });

  it('refuses a bad amount as a usage error', async () => {
    const created = await genctl('developers', 'create', '--name', 'Amounts', '--json');
    for (const amount of ['-1', '0', '1.0000001', 'lots']) {
      const result = await genctl('accounts', 'credit', created.json.developer_id, '--amount', amount, '--reason', 'x');
      expect(result.code, amount).toBe(2);
      expect(result.stderr).toMatch(/--amount/);
    }
  });

  it('prints help', async () => {
    const result = await genctl('help');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/genctl developers create --name/);
  });
});
