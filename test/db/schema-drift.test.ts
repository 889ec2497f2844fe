import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyMigrations } from '../../src/db/migrate.ts';
import { createEmptyDatabase } from '../helpers/database.ts';
import { describeDrift, introspect, readPrismaDatamodel } from '../helpers/schema-drift.ts';

const datamodel = readPrismaDatamodel();
let database: Awaited<ReturnType<typeof createEmptyDatabase>>;

beforeAll(async () => {
  database = await createEmptyDatabase();
  await applyMigrations(database.url);
});
afterAll(() => database.drop());

describe('schema.prisma and the migrations', () => {
  it('agree: the migrated database is exactly the Prisma datamodel', async () => {
    expect(describeDrift(datamodel, await introspect(database.url))).toEqual([]);
  });

  it('the comparison catches each kind of drift', async () => {
    const scratch = await createEmptyDatabase();
    try {
      await applyMigrations(scratch.url);
      const client = new pg.Client({ connectionString: scratch.url });
      await client.connect();
      await client.query(`
        ALTER TABLE tasks DROP COLUMN prompt;
        ALTER TABLE api_keys ALTER COLUMN name DROP NOT NULL;
        ALTER TABLE balances ALTER COLUMN balance DROP DEFAULT;
        ALTER TABLE deposits ALTER COLUMN log_index TYPE bigint;
        DROP INDEX tasks_status_created_at_idx;
        ALTER TABLE deposits DROP CONSTRAINT deposits_account_id_fkey;
        ALTER TYPE "TaskStatus" ADD VALUE 'cancelled';
        CREATE TABLE stray (id int);`);
      await client.end();
      const drift = describeDrift(datamodel, await introspect(scratch.url));
      expect(drift).toEqual(
        expect.arrayContaining([
          'column tasks.prompt is missing',
          'column api_keys.name is nullable, schema says required',
          'column balances.balance has no default, schema says default',
          'column deposits.log_index is int8, schema says int4',
          'plain index on tasks(status, created_at) is missing',
          'foreign key deposits: FOREIGN KEY (account_id) REFERENCES accounts(id) ON UPDATE CASCADE ON DELETE RESTRICT is missing',
          'enum TaskStatus has [queued,processing,completed,failed,cancelled], schema says [queued,processing,completed,failed]',
          'table stray is not in schema.prisma',
        ]),
      );
      expect(drift).toHaveLength(8);
    } finally {
      await scratch.drop();
    }
  });
});
