// Integration: HTTP → Express → Prisma → PostgreSQL, and → Temporal, all real.
import { Connection } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { readMigrations } from '../../src/db/migrate.ts';
import { createPrisma } from '../../src/db/prisma.ts';
import { databaseProbe, temporalProbe } from '../../src/health.ts';
import { startTestApp } from '../helpers/app.ts';
import { createEmptyDatabase } from '../helpers/database.ts';
import { freePort } from '../../harness/ports.ts';
import { useDevServerAndDatabase } from '../helpers/stack.ts';

const stack = useDevServerAndDatabase();

async function getHealth(probes: Parameters<typeof startTestApp>[0]['health']) {
  const app = await startTestApp({ database: stack.database, health: probes });
  try {
    const response = await fetch(`${app.url}/healthz`);
    return { status: response.status, body: (await response.json()) as any };
  } finally {
    await app.close();
  }
}

describe('GET /healthz', () => {
  it('is 200 when the database is migrated and Temporal answers', async () => {
    const { status, body } = await getHealth({
      database: databaseProbe(stack.database.prisma),
      temporal: temporalProbe(stack.env.connection, 'default'),
    });
    expect(status).toBe(200);
    expect(body.status).toBe('ok');
    expect(body.checks.database).toMatchObject({
      status: 'up',
      detail: `${readMigrations().length} migrations applied`,
    });
    expect(body.checks.temporal).toMatchObject({ status: 'up', detail: 'namespace default' });
  });

  it('is 503 naming Temporal when Temporal does not answer', async () => {
    // Without the client's gRPC retries: on a loaded machine a retry could still be pending when the probe gives up
    // (2 s), and fire after `close()` below as an uncaught "Channel has been shut down" that fails the run.
    const connection = Connection.lazy({
      address: `127.0.0.1:${await freePort()}`,
      connectTimeout: 500,
      interceptors: [],
    });
    try {
      const { status, body } = await getHealth({
        database: databaseProbe(stack.database.prisma),
        temporal: temporalProbe(connection, 'default'),
      });
      expect(status).toBe(503);
      expect(body).toMatchObject({ error: 'service_unavailable', status: 'down' });
      expect(body.message).toMatch(/^Down: temporal \(/);
      expect(body.checks.database.status).toBe('up');
      expect(body.checks.temporal.status).toBe('down');
    } finally {
      await connection.close();
    }
  });

  it('is 503 naming the database when its schema is behind the migrations', async () => {
    const empty = await createEmptyDatabase();
    const prisma = createPrisma(empty.url);
    try {
      const { status, body } = await getHealth({
        database: databaseProbe(prisma),
        temporal: temporalProbe(stack.env.connection, 'default'),
      });
      expect(status).toBe(503);
      expect(body.message).toMatch(/^Down: database \(/);
      expect(body.checks.temporal.status).toBe('up');
    } finally {
      await prisma.$disconnect();
      await empty.drop();
    }
  });
});
