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

// The database each client was made for: what needs a connection of its own (a LISTEN) opens it to the same one.
const databaseUrls = new WeakMap<PrismaClient, string>();

/** Prisma through the pg driver adapter: no query engine binary, which this environment cannot download. */
export function createPrisma(databaseUrl: string): PrismaClient {
  const prisma = new PrismaClient({
    adapter: new PrismaPg(createPool(databaseUrl), { disposeExternalPool: true }),
  });
  databaseUrls.set(prisma, databaseUrl);
  return prisma;
}

/** The URL `createPrisma` was given for this client, if it made it. */
export const databaseUrlOf = (prisma: PrismaClient): string | undefined => databaseUrls.get(prisma);
