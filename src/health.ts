// Readiness of what the service needs: the database (reachable, schema current) and Temporal (reachable).
import type { Connection } from '@temporalio/client';
import type { PrismaClient } from './db/prisma.ts';
import { readMigrations } from './db/migrate.ts';

export interface ComponentHealth {
  status: 'up' | 'down';
  latency_ms: number;
  detail?: string;
}

export type HealthProbe = () => Promise<string | void>;

/** A reason safe to show on an unauthenticated endpoint: no host names, ports or driver messages. */
export class HealthProblem extends Error {}
export type HealthProbes = Record<string, HealthProbe>;

const probeTimeoutMs = 2_000;

async function runProbe(probe: HealthProbe, onError: (error: unknown) => void): Promise<ComponentHealth> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new HealthProblem(`no answer within ${probeTimeoutMs} ms`)), probeTimeoutMs);
    });
    const detail = await Promise.race([probe(), timeout]);
    return { status: 'up', latency_ms: Math.round(performance.now() - started), ...(detail ? { detail } : {}) };
  } catch (error) {
    if (!(error instanceof HealthProblem)) onError(error);
    const detail = error instanceof HealthProblem ? error.message : 'unreachable (details in the server log)';
    return { status: 'down', latency_ms: Math.round(performance.now() - started), detail };
  } finally {
    clearTimeout(timer);
  }
}

export async function checkHealth(
  probes: HealthProbes,
  onError: (name: string, error: unknown) => void = () => {},
): Promise<Record<string, ComponentHealth>> {
  const names = Object.keys(probes);
  const results = await Promise.all(names.map((name) => runProbe(probes[name]!, (error) => onError(name, error))));
  return Object.fromEntries(names.map((name, index) => [name, results[index]!]));
}

export function databaseProbe(prisma: PrismaClient, expected = readMigrations().map((m) => m.name)): HealthProbe {
  return async () => {
    const rows = await prisma.$queryRaw<{ migration_name: string }[]>`
      SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
    const applied = new Set(rows.map((row) => row.migration_name));
    const pending = expected.filter((name) => !applied.has(name));
    if (pending.length > 0) throw new HealthProblem(`schema is behind: pending migrations ${pending.join(', ')}`);
    return `${applied.size} migrations applied`;
  };
}

// Inside the probe's own time limit: the client retries an unreachable server, and a retry still pending after the
// probe gave up would fire on a connection that may be closed by then (an uncaught "Channel has been shut down").
const temporalDeadlineMs = probeTimeoutMs - 500;

export function temporalProbe(connection: Connection, namespace: string): HealthProbe {
  return async () => {
    await connection.withDeadline(Date.now() + temporalDeadlineMs, () =>
      connection.workflowService.describeNamespace({ namespace }),
    );
    return `namespace ${namespace}`;
  };
}
