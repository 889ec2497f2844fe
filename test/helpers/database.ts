// A fresh, migrated database per test file, inside the run's embedded PostgreSQL: a copy of the run's migrated
// template (test/global-setup.ts), which takes a fraction of the time of applying every migration again.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { applyMigrations } from '../../src/db/migrate.ts';
import { createPrisma, type PrismaClient } from '../../src/db/prisma.ts';

export interface TestDatabase {
  name: string;
  url: string;
  prisma: PrismaClient;
  drop(): Promise<void>;
}

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: inject('databaseAdminUrl') });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** An empty database (no migrations): for tests of the migration runner itself. */
export function createEmptyDatabase(): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  return createDatabase();
}

async function createDatabase(template?: string): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `test_${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ''}`);
  const url = new URL(inject('databaseAdminUrl'));
  url.pathname = `/${name}`;
  return { name, url: url.toString(), drop: () => adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const migrated = await createDatabase(inject('databaseTemplate'));
  // Finds every migration applied (and would apply one the template lacked).
  await applyMigrations(migrated.url);
  const prisma = createPrisma(migrated.url);
  return {
    ...migrated,
    prisma,
    async drop() {
      await prisma.$disconnect();
      await migrated.drop();
    },
  };
}
