// The cluster starts its PostgreSQL with a password of its own; a data directory made before that (its role's
// password the fixed `gateway`) is given the new one on its next start, so it keeps working and `gateway` opens
// nothing any more.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../src/infra/embedded-postgres.ts';
import { withPgClient } from '../../src/infra/pg-client.ts';
import { testLogger } from '../helpers/logger.ts';
import { freePort } from '../../harness/ports.ts';

const scratch = await mkdtemp(join(tmpdir(), 'gateway-embedded-password-'));
afterAll(() => rm(scratch, { recursive: true, force: true }));

const connects = (port: number, password: string) =>
  withPgClient({ host: '127.0.0.1', port, user: 'gateway', password, database: 'gateway' }, async () => true).catch(
    (error: { code?: string }) => error.code,
  );

it('gives a data directory made with the former password the one it is now started with', async () => {
  const options = {
    dataDir: join(scratch, 'postgres'),
    port: await freePort(),
    database: 'gateway',
    logger: testLogger,
  };
  const before = await startEmbeddedPostgres(options);
  await before.stop();

  const password = 'c0ffee'.repeat(8);
  const after = await startEmbeddedPostgres({ ...options, password, formerPassword: 'gateway' });
  try {
    expect(new URL(after.url).password).toBe(password);
    expect(await connects(options.port, password)).toBe(true);
    // 28P01: password authentication failed.
    expect(await connects(options.port, 'gateway')).toBe('28P01');
  } finally {
    await after.stop();
  }
});
