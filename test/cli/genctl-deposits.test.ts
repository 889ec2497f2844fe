// genctl deposits list|show: the real command line against a test database holding deposits in every status.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFundedAccount } from '../helpers/accounts.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { runGenctl } from '../helpers/genctl.ts';

let database: TestDatabase;
let alice: string;
let bob: string;
const genctl = (...args: string[]) => runGenctl({ DATABASE_URL: database.url }, args);

const hash = (digit: string) => `0x${digit.repeat(64)}`;
const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 12, minute));

beforeAll(async () => {
  database = await createTestDatabase();
  alice = await createFundedAccount(database.prisma, { kind: 'agent' });
  bob = await createFundedAccount(database.prisma, { kind: 'agent' });
  const row = (id: string, accountId: string, chain: string, txHash: string, minute: number) => ({
    id,
    accountId,
    chain,
    txHash,
    transferIndex: 0,
    logIndex: 0,
    createdAt: at(minute),
    fromAddress: '0x1111111111111111111111111111111111111111',
    toAddress: '0x2222222222222222222222222222222222222222',
  });
  await database.prisma.deposit.createMany({
    data: [
      {
        ...row('dep_credited', alice, 'base', hash('a'), 1),
        amount: 5_000_000n,
        blockNumber: 120n,
        logIndex: 0,
        status: 'credited',
        creditedAt: at(2),
      },
      { ...row('dep_pending', alice, 'base', hash('b'), 3), amount: 1_250_000n, blockNumber: 130n, status: 'pending' },
      { ...row('dep_rejected', bob, 'base', hash('c'), 4), status: 'rejected', reason: 'no_usdc_transfer' },
      // The same transaction hash on two chains: `show` by hash needs --chain.
      { ...row('dep_polygon', bob, 'polygon', hash('d'), 5), amount: 10_000n, status: 'confirmed' },
      { ...row('dep_ethereum', bob, 'ethereum', hash('d'), 6), amount: 20_000n, status: 'confirmed' },
    ],
  });
});
afterAll(() => database?.drop());

describe('genctl deposits', () => {
  it('lists the newest first, by account and by status, within --limit', async () => {
    const all = await genctl('deposits', 'list', '--json');
    expect(all.code, all.stderr).toBe(0);
    expect(all.json.deposits.map((deposit: any) => deposit.deposit_id)).toEqual([
      'dep_ethereum',
      'dep_polygon',
      'dep_rejected',
      'dep_pending',
      'dep_credited',
    ]);
    expect(all.json.deposits[4]).toEqual({
      deposit_id: 'dep_credited',
      account_id: alice,
      chain: 'base',
      tx_hash: hash('a'),
      amount_usd: '5.00',
      status: 'credited',
      reason: null,
      created_at: '2026-01-01T12:01:00.000Z',
      credited_at: '2026-01-01T12:02:00.000Z',
    });
    expect(all.json.deposits[2]).toMatchObject({ amount_usd: null, status: 'rejected', reason: 'no_usdc_transfer' });

    const ofAlice = await genctl('deposits', 'list', '--account', alice, '--json');
    expect(ofAlice.json.deposits.map((deposit: any) => deposit.deposit_id)).toEqual(['dep_pending', 'dep_credited']);
    const confirmed = await genctl('deposits', 'list', '--status', 'confirmed', '--limit', '1', '--json');
    expect(confirmed.json.deposits.map((deposit: any) => deposit.deposit_id)).toEqual(['dep_ethereum']);
    const none = await genctl('deposits', 'list', '--account', alice, '--status', 'rejected');
    expect(none).toMatchObject({ code: 0, stdout: 'No deposits.\n' });

    const text = await genctl('deposits', 'list', '--account', alice);
    expect(text.stdout.split('\n')).toEqual([
      `dep_pending  ${alice}  base  ${hash('b')}  1.25 USD  pending    2026-01-01T12:03:00.000Z`,
      `dep_credited  ${alice}  base  ${hash('a')}  5.00 USD  credited   2026-01-01T12:01:00.000Z  credited 2026-01-01T12:02:00.000Z`,
      '',
    ]);
  });

  it('shows one deposit by id or by transaction hash', async () => {
    const byId = await genctl('deposits', 'show', 'dep_credited', '--json');
    expect(byId.json).toEqual({
      deposit_id: 'dep_credited',
      account_id: alice,
      chain: 'base',
      tx_hash: hash('a'),
      amount_usd: '5.00',
      status: 'credited',
      reason: null,
      created_at: '2026-01-01T12:01:00.000Z',
      credited_at: '2026-01-01T12:02:00.000Z',
      log_index: 0,
      from_address: '0x1111111111111111111111111111111111111111',
      to_address: '0x2222222222222222222222222222222222222222',
      block_number: 120,
      updated_at: expect.any(String),
    });
    // Hashes are stored in lowercase; an operator may paste one in any case.
    const byHash = await genctl('deposits', 'show', `0x${'A'.repeat(64)}`);
    expect(byHash.code).toBe(0);
    expect(byHash.stdout).toContain('dep_credited  credited\n');
    expect(byHash.stdout).toContain(`chain     base, tx ${hash('a')}, block 120`);

    const rejected = await genctl('deposits', 'show', hash('c'));
    expect(rejected.stdout).toContain('dep_rejected  rejected (no_usdc_transfer)');

    const onTwoChains = await genctl('deposits', 'show', hash('d'));
    expect(onTwoChains).toMatchObject({ code: 1 });
    expect(onTwoChains.stderr).toContain('is a deposit on ethereum, polygon: add --chain <chain>');
    const onPolygon = await genctl('deposits', 'show', hash('d'), '--chain', 'polygon', '--json');
    expect(onPolygon.json).toMatchObject({ deposit_id: 'dep_polygon', amount_usd: '0.01' });
  });

  it.each([
    [['deposits', 'show', 'dep_missing'], 1, 'no deposit dep_missing'],
    [['deposits', 'show', hash('e')], 1, `no deposit ${hash('e')}`],
    [['deposits', 'show'], 2, 'missing the deposit id or transaction hash'],
    [['deposits', 'show', 'agt_x'], 2, 'neither a deposit id'],
    [['deposits', 'list', '--status', 'done'], 2, '--status must be one of pending, confirmed, credited, rejected'],
    [['deposits', 'list', '--limit', '0'], 2, '--limit must be a whole number'],
  ])('%j exits %i', async (args, code, message) => {
    const result = await genctl(...args);
    expect(result.code).toBe(code);
    expect(result.stderr).toContain(message);
  });
});
