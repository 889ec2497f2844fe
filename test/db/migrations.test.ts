import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyMigrations, readMigrations } from '../../src/db/migrate.ts';
import { createEmptyDatabase, createTestDatabase, type TestDatabase } from '../helpers/database.ts';

describe('migration runner', () => {
  it("applies every migration once, in Prisma's bookkeeping format, and nothing on a second run", async () => {
    const database = await createEmptyDatabase();
    try {
      const names = readMigrations().map((migration) => migration.name);
      expect(await applyMigrations(database.url)).toEqual(names);
      expect(await applyMigrations(database.url)).toEqual([]);
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const { rows } = await client.query(
        'SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" ORDER BY migration_name',
      );
      await client.end();
      expect(rows.map((row) => row.migration_name)).toEqual(names);
      expect(rows.every((row) => /^[0-9a-f]{64}$/.test(row.checksum) && row.finished_at)).toBe(true);
    } finally {
      await database.drop();
    }
  });

  it('two processes migrating at once apply each migration once', async () => {
    const database = await createEmptyDatabase();
    try {
      const [first, second] = await Promise.all([applyMigrations(database.url), applyMigrations(database.url)]);
      expect([...first, ...second]).toEqual(readMigrations().map((migration) => migration.name));
    } finally {
      await database.drop();
    }
  });

  it('refuses a migration edited after it was applied', async () => {
    const database = await createEmptyDatabase();
    try {
      await applyMigrations(database.url);
      const edited = readMigrations().map((migration, index) =>
        index === 0 ? { ...migration, checksum: 'f'.repeat(64) } : migration,
      );
      await expect(applyMigrations(database.url, edited)).rejects.toThrow(/was edited after it was applied/);
    } finally {
      await database.drop();
    }
  });

  it('rolls back a failing migration and records nothing', async () => {
    const database = await createEmptyDatabase();
    try {
      const broken = [
        {
          name: '20990101000000_broken',
          sql: 'CREATE TABLE half (id int); SELECT no_such_function();',
          checksum: '0'.repeat(64),
        },
      ];
      await expect(applyMigrations(database.url, broken)).rejects.toThrow(/20990101000000_broken failed/);
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const tables = await client.query(`SELECT 1 FROM information_schema.tables WHERE table_name = 'half'`);
      const recorded = await client.query('SELECT 1 FROM "_prisma_migrations"');
      await client.end();
      expect(tables.rowCount).toBe(0);
      expect(recorded.rowCount).toBe(0);
    } finally {
      await database.drop();
    }
  });
});

/**
 * Runs `test` on a database migrated to just before the migration named `*<suffix>`, with a client on it and a way to
 * apply that migration (and those before it) as a deployment would.
 */
async function beforeMigration(
  suffix: string,
  test: (client: pg.Client, migrate: () => Promise<unknown>) => Promise<void>,
) {
  const database = await createEmptyDatabase();
  try {
    const migrations = readMigrations();
    const at = migrations.findIndex((migration) => migration.name.endsWith(suffix));
    await applyMigrations(database.url, migrations.slice(0, at));
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await test(client, () => applyMigrations(database.url, migrations.slice(0, at + 1)));
    } finally {
      await client.end();
    }
  } finally {
    await database.drop();
  }
}

it('counts trials granted before trial_grants existed under their network (an IPv6 /64 as its /48)', async () => {
  await beforeMigration('_trial_grants', async (client, migrate) => {
    for (const [id, address] of [
      ['agt_v6', '2001:db8:a1:2::/64'],
      ['agt_v4', '203.0.113.7'],
    ]) {
      await client.query(
        `INSERT INTO accounts (id, kind, name, client_address, updated_at) VALUES ($1, 'agent', 'bot', $2, now())`,
        [id, address],
      );
      await client.query(
        `INSERT INTO ledger_entries (account_id, kind, amount, balance_after, reserved_after, idempotency_key)
       VALUES ($1, 'trial_credit', 1000000, 1000000, 0, 'trial:' || $1)`,
        [id],
      );
    }
    await migrate();
    const { rows } = await client.query('SELECT account_id, network FROM trial_grants ORDER BY account_id');
    expect(rows).toEqual([
      { account_id: 'agt_v4', network: '203.0.113.7' },
      { account_id: 'agt_v6', network: '2001:db8:a1::/48' },
    ]);
  });
});

it('keeps deposits recorded one per transaction valid when a deposit becomes one per transfer log', async () => {
  await beforeMigration('_deposit_per_transfer', async (client, migrate) => {
    await client.query(`INSERT INTO accounts (id, kind, name, updated_at) VALUES ('agt_1', 'agent', 'bot', now())`);
    await client.query(
      `INSERT INTO deposits (id, account_id, chain, tx_hash, log_index, amount, status)
     VALUES ('dep_old', 'agt_1', 'base', '0xaa', 4, 2000000, 'credited'),
            ('dep_unlogged', 'agt_1', 'base', '0xbb', NULL, NULL, 'rejected')`,
    );
    await migrate();
    const { rows } = await client.query('SELECT id, tx_hash, log_index, status FROM deposits ORDER BY id');
    expect(rows).toEqual([
      { id: 'dep_old', tx_hash: '0xaa', log_index: 4, status: 'credited' },
      { id: 'dep_unlogged', tx_hash: '0xbb', log_index: 0, status: 'rejected' },
    ]);
    // Another transfer of the same transaction is a deposit of its own; the same one again is refused.
    const insert = `INSERT INTO deposits (id, account_id, chain, tx_hash, log_index, status)
                  VALUES ($1, 'agt_1', 'base', '0xaa', $2, 'pending')`;
    await client.query(insert, ['dep_new', 7]);
    await expect(client.query(insert, ['dep_again', 4])).rejects.toThrow(/deposits_chain_tx_hash_log_index_key/);
  });
});

it('gives deposits recorded by log index their place among their transaction’s transfers', async () => {
  await beforeMigration('_deposit_transfer_index', async (client, migrate) => {
    await client.query(`INSERT INTO accounts (id, kind, name, updated_at) VALUES ('agt_1', 'agent', 'bot', now())`);
    await client.query(
      `INSERT INTO deposits (id, account_id, chain, tx_hash, log_index, amount, status)
     VALUES ('dep_a9', 'agt_1', 'base', '0xaa', 9, 1000000, 'credited'),
            ('dep_a4', 'agt_1', 'base', '0xaa', 4, 2000000, 'credited'),
            ('dep_b2', 'agt_1', 'base', '0xbb', 2, 3000000, 'pending')`,
    );
    await migrate();
    const { rows } = await client.query('SELECT id, transfer_index, log_index FROM deposits ORDER BY id');
    expect(rows).toEqual([
      { id: 'dep_a4', transfer_index: 0, log_index: 4 },
      { id: 'dep_a9', transfer_index: 1, log_index: 9 },
      { id: 'dep_b2', transfer_index: 0, log_index: 2 },
    ]);
    // The key is the transfer index now: the same transfer at another log index is the same deposit.
    const insert = `INSERT INTO deposits (id, account_id, chain, tx_hash, transfer_index, log_index, status)
                  VALUES ('dep_again', 'agt_1', 'base', '0xbb', 0, 5, 'pending')`;
    await expect(client.query(insert)).rejects.toThrow(/deposits_chain_tx_hash_transfer_index_key/);
  });
});

describe('money invariants in the database', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    await database.prisma.account.create({
      data: { id: 'agt_1', kind: 'agent', name: 'bot', balance: { create: { balance: 5_000_000n } } },
    });
  });
  afterAll(() => database.drop());

  it.each([
    ['reserved above balance', { reserved: 6_000_000n }, /balances_reserved_within_balance/],
    ['negative reserved', { reserved: -1n }, /balances_reserved_nonnegative/],
  ])('rejects %s', async (_name, data, constraint) => {
    await expect(database.prisma.balance.update({ where: { accountId: 'agt_1' }, data })).rejects.toThrow(constraint);
  });

  it('keeps micro-USD exact beyond 2^53', async () => {
    const big = 9_007_199_254_740_993n;
    await database.prisma.balance.update({ where: { accountId: 'agt_1' }, data: { balance: big } });
    expect((await database.prisma.balance.findUniqueOrThrow({ where: { accountId: 'agt_1' } })).balance).toBe(big);
  });

  it('keeps the ledger append-only and its idempotency keys unique', async () => {
    const entry = {
      accountId: 'agt_1',
      kind: 'trial_credit' as const,
      amount: 1_000_000n,
      balanceAfter: 1_000_000n,
      reservedAfter: 0n,
      idempotencyKey: 'trial:agt_1',
    };
    const created = await database.prisma.ledgerEntry.create({ data: entry });
    await expect(database.prisma.ledgerEntry.create({ data: entry })).rejects.toThrow(
      /Unique constraint failed|idempotency_key/,
    );
    await expect(
      database.prisma.ledgerEntry.update({ where: { id: created.id }, data: { amount: 2n } }),
    ).rejects.toThrow(/append-only/);
    await expect(database.prisma.ledgerEntry.delete({ where: { id: created.id } })).rejects.toThrow(/append-only/);
  });
});

it('adds the tasks that ended before usage was recorded to its hourly and daily rows, from their ledger entries', async () => {
  await beforeMigration('_usage_hourly', async (client, migrate) => {
    await client.query(`INSERT INTO accounts (id, kind, name, updated_at) VALUES ('dev_1', 'developer', 'd', now())`);
    await client.query(
      `INSERT INTO api_keys (id, account_id, name, key_hash, key_prefix) VALUES ('key_1', 'dev_1', 'k', 'h', 'sk_')`,
    );
    // Completed (held 5,000, charged 3,000), failed and cancelled (each released), and one still queued.
    const tasks = [
      ['gen_done', null, 'completed', null, 'charge', -3000, -5000, '2026-11-01T10:20:00Z'],
      ['gen_failed', 'key_1', 'failed', 'upstream refused', 'release', 0, -4000, '2026-11-01T11:05:00Z'],
      ['gen_cancelled', 'key_1', 'failed', 'cancelled', 'release', 0, -1000, '2026-11-02T00:30:00Z'],
      ['gen_queued', null, 'queued', null, null, 0, 0, null],
    ] as const;
    for (const [id, key, status, error, kind, amount, reserved, at] of tasks) {
      await client.query(
        `INSERT INTO tasks (id, account_id, api_key_id, type, model, status, error, request, cost_reserved, updated_at)
         VALUES ($1, 'dev_1', $2, 'text-to-image', 'fal/flux-dev', $3, $4, '{}', 5000, now())`,
        [id, key, status, error],
      );
      if (kind)
        await client.query(
          `INSERT INTO ledger_entries (account_id, kind, amount, reserved_delta, balance_after, reserved_after,
             idempotency_key, task_id, created_at) VALUES ('dev_1', $1, $2, $3, 0, 0, $4, $4, $5)`,
          [kind, amount, reserved, id, at],
        );
    }
    await migrate();
    const columns = `api_key_id, completed::int, failed::int, cancelled::int, cost::int, refunded::int`;
    const hourly = await client.query(`SELECT hour, ${columns} FROM usage_hourly ORDER BY hour`);
    expect(hourly.rows).toEqual([
      {
        hour: new Date('2026-11-01T10:00Z'),
        api_key_id: '',
        completed: 1,
        failed: 0,
        cancelled: 0,
        cost: 3000,
        refunded: 2000,
      },
      {
        hour: new Date('2026-11-01T11:00Z'),
        api_key_id: 'key_1',
        completed: 0,
        failed: 1,
        cancelled: 0,
        cost: 0,
        refunded: 4000,
      },
      {
        hour: new Date('2026-11-02T00:00Z'),
        api_key_id: 'key_1',
        completed: 0,
        failed: 0,
        cancelled: 1,
        cost: 0,
        refunded: 1000,
      },
    ]);
    const daily = await client.query(`SELECT day::text, ${columns} FROM usage_daily ORDER BY day, api_key_id`);
    expect(daily.rows).toEqual([
      { day: '2026-11-01', api_key_id: '', completed: 1, failed: 0, cancelled: 0, cost: 3000, refunded: 2000 },
      { day: '2026-11-01', api_key_id: 'key_1', completed: 0, failed: 1, cancelled: 0, cost: 0, refunded: 4000 },
      { day: '2026-11-02', api_key_id: 'key_1', completed: 0, failed: 0, cancelled: 1, cost: 0, refunded: 1000 },
    ]);
  });
});

it("sums each account's days across its keys into usage_daily_totals", async () => {
  await beforeMigration('_usage_daily_totals', async (client, migrate) => {
    await client.query(`INSERT INTO accounts (id, kind, name, updated_at) VALUES ('dev_1', 'developer', 'd', now())`);
    const rows = [
      ['', 'fal/flux-dev', 2, 3000, 4],
      ['key_1', 'fal/flux-dev', 1, 1500, 2],
      ['key_2', 'openai/sora-2', 1, 9000, 0],
    ] as const;
    for (const [key, model, completed, cost, images] of rows)
      await client.query(
        `INSERT INTO usage_daily (account_id, day, api_key_id, model, type, completed, cost, images)
         VALUES ('dev_1', '2026-11-01', $1, $2, 'text-to-image', $3, $4, $5)`,
        [key, model, completed, cost, images],
      );
    await migrate();
    const totals = await client.query(
      `SELECT day::text, model, completed::int, cost::int, images::int FROM usage_daily_totals ORDER BY model`,
    );
    expect(totals.rows).toEqual([
      { day: '2026-11-01', model: 'fal/flux-dev', completed: 3, cost: 4500, images: 6 },
      { day: '2026-11-01', model: 'openai/sora-2', completed: 1, cost: 9000, images: 0 },
    ]);
  });
});

it('gives every key made before ancestor_ids existed its makers, nearest first', async () => {
  await beforeMigration('_key_ancestors', async (client, migrate) => {
    await client.query(`INSERT INTO accounts (id, kind, name, updated_at) VALUES ('dev_1', 'developer', 'd', now())`);
    for (const [id, parent] of [
      ['key_root', null],
      ['key_child', 'key_root'],
      ['key_grandchild', 'key_child'],
      ['key_other', null],
    ])
      await client.query(
        `INSERT INTO api_keys (id, account_id, name, key_hash, key_prefix, parent_id)
         VALUES ($1, 'dev_1', $1, $1, 'sk_', $2)`,
        [id, parent],
      );
    await migrate();
    const { rows } = await client.query('SELECT id, ancestor_ids FROM api_keys ORDER BY id');
    expect(rows).toEqual([
      { id: 'key_child', ancestor_ids: ['key_root'] },
      { id: 'key_grandchild', ancestor_ids: ['key_child', 'key_root'] },
      { id: 'key_other', ancestor_ids: [] },
      { id: 'key_root', ancestor_ids: [] },
    ]);
  });
});
