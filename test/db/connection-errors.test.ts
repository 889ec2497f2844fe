// PostgreSQL restarting sends a FATAL message to every backend. A connection that receives it while checked out
// between queries must not end the process (it did: scenario d of the fault suite killed the worker this way).
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPool, createPrisma } from '../../src/db/prisma.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

const terminate = async (url: string, pid: number) => {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
  } finally {
    await admin.end();
  }
};

it('a checked-out idle connection whose backend is terminated does not throw, and the pool answers afterwards', async () => {
  const pool = createPool(database.url);
  const uncaught: Error[] = [];
  const onUncaught = (error: Error) => uncaught.push(error);
  process.on('uncaughtException', onUncaught);
  try {
    const client = await pool.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    await terminate(database.url, rows[0]!.pid);
    // The FATAL message reaches the client a moment after the backend is gone.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(uncaught).toEqual([]);
    await expect(client.query('SELECT 1')).rejects.toThrow();
    client.release(new Error('terminated'));
    const after = await pool.query<{ one: number }>('SELECT 1 AS one');
    expect(after.rows[0]!.one).toBe(1);
  } finally {
    process.off('uncaughtException', onUncaught);
    await pool.end();
  }
}, 20_000);

it('Prisma keeps answering after its connections are terminated', async () => {
  const prisma = createPrisma(database.url);
  try {
    await prisma.$queryRaw`SELECT 1`;
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    await admin.end();
    let answered = false;
    for (let attempt = 0; attempt < 3 && !answered; attempt++) {
      answered = await prisma.$queryRaw`SELECT 1`.then(
        () => true,
        () => false,
      );
    }
    expect(answered).toBe(true);
  } finally {
    await prisma.$disconnect();
  }
});
