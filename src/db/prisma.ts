import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.ts';

export type { PrismaClient };

/**
 * The pg pool under Prisma. Every connection keeps an 'error' listener for life: PostgreSQL going away sends a FATAL
 * message to every backend, and one that lands on a connection checked out between queries would otherwise be an
 * unhandled 'error' event, ending the process. The pool drops such a connection; the next query fails and is retried.
 */
export function createPool(databaseUrl: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl });
  pool.on('connect', (client) => client.on('error', () => undefined));
  pool.on('error', () => undefined);
  return pool;
}

/** Prisma through the pg driver adapter: no query engine binary, which this environment cannot download. */
export function createPrisma(databaseUrl: string): PrismaClient {
  return new PrismaClient({
    adapter: new PrismaPg(createPool(databaseUrl), { disposeExternalPool: true }),
  });
}
