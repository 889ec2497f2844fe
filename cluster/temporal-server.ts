// Temporal's own server (not the CLI's dev server), configured as its container image is: the server's embedded
// config template filled from environment variables (DB, POSTGRES_SEEDS, NUM_HISTORY_SHARDS, …), so the cluster
// and docker-compose.yml's temporalio/server service read one configuration the same way.
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { withPgClient } from '../src/infra/pg-client.ts';
import { historyShards } from './versions.ts';
import { temporalDatabases, type SqlConnection } from './temporal-schema.ts';
import {
  readyOrStopped,
  startSupervised,
  type SupervisedProcess,
  waitUntil,
} from '../src/infra/processes/supervised-process.ts';
import { temporalFrontendAnswers } from '../src/infra/temporal-dev-server.ts';

// Each service's gRPC and membership ports, besides the frontend's configured one; the frontend also serves HTTP.
const pickedPorts = [
  'frontendHttp',
  'frontendMembership',
  'history',
  'historyMembership',
  'matching',
  'matchingMembership',
  'worker',
  'workerMembership',
] as const;

export type TemporalPorts = { frontend: number } & Record<(typeof pickedPorts)[number], number>;

/** The frontend's port as configured; the others as `pick` gives them. */
export async function temporalPorts(
  frontend: number,
  pick: (count: number) => Promise<number[]>,
): Promise<TemporalPorts> {
  const ports = await pick(pickedPorts.length);
  return { frontend, ...Object.fromEntries(pickedPorts.map((name, index) => [name, ports[index]!])) } as TemporalPorts;
}

/** The variables of the embedded template that compose's temporal service sets too (the shared part). */
export const temporalPersistenceEnvironment = {
  DB: 'postgres12',
  NUM_HISTORY_SHARDS: String(historyShards),
};

/** The server's whole environment: nothing of the caller's, so no stray variable of the template's steers it. */
export function temporalServerEnvironment(options: {
  postgres: SqlConnection;
  ports: TemporalPorts;
  dynamicConfigFile: string;
}): NodeJS.ProcessEnv {
  const { postgres, ports } = options;
  return {
    PATH: process.env.PATH,
    ...temporalPersistenceEnvironment,
    POSTGRES_SEEDS: postgres.host,
    DB_PORT: String(postgres.port),
    POSTGRES_USER: postgres.user,
    POSTGRES_PWD: postgres.password,
    BIND_ON_IP: '127.0.0.1',
    FRONTEND_GRPC_PORT: String(ports.frontend),
    FRONTEND_HTTP_PORT: String(ports.frontendHttp),
    FRONTEND_MEMBERSHIP_PORT: String(ports.frontendMembership),
    HISTORY_GRPC_PORT: String(ports.history),
    HISTORY_MEMBERSHIP_PORT: String(ports.historyMembership),
    MATCHING_GRPC_PORT: String(ports.matching),
    MATCHING_MEMBERSHIP_PORT: String(ports.matchingMembership),
    WORKER_GRPC_PORT: String(ports.worker),
    WORKER_MEMBERSHIP_PORT: String(ports.workerMembership),
    DYNAMIC_CONFIG_FILE_PATH: options.dynamicConfigFile,
    LOG_LEVEL: 'warn',
  };
}

/**
 * Forgets the members a previous run of this server left in its ring's table. The cluster runs one server, and it is
 * not running yet: every row is stale. Rows heartbeated in the last 20 s would be ringpop's seeds, and joining ports
 * nobody serves any more holds the server's start for 30–60 s (a restart right after a stop, or after a crash).
 */
export async function forgetPreviousMembers(postgres: SqlConnection): Promise<void> {
  // The ring's table is in Temporal's own database, not the visibility one.
  await withPgClient({ ...postgres, database: temporalDatabases[0].database }, (client) =>
    client.query('DELETE FROM cluster_membership'),
  );
}

export async function startTemporalServer(options: {
  binary: string;
  dataDir: string;
  logDir: string;
  postgres: SqlConnection;
  ports: TemporalPorts;
  dynamicConfigFile: string;
}): Promise<{ process: SupervisedProcess; address: string }> {
  await forgetPreviousMembers(options.postgres);
  const server = await startSupervised({
    name: 'temporal',
    command: options.binary,
    args: ['--allow-no-auth', 'start'],
    cwd: options.dataDir,
    env: temporalServerEnvironment(options),
    logFile: join(options.logDir, 'temporal.log'),
  });
  const address = `127.0.0.1:${options.ports.frontend}`;
  // The first start joins the membership ring and creates its shards: tens of seconds on a busy machine.
  await readyOrStopped(
    server,
    waitUntil(server, `serving on ${address}`, () => temporalFrontendAnswers(address), 120_000),
    5_000,
  );
  return { process: server, address };
}

const alreadyExists = 6;

/** How long closed workflows stay in Temporal (the gateway's own rows keep every task); compose registers the same. */
export const namespaceRetention = '72h';

/** Registers the namespace (the server's config cannot), and waits until the frontend serves it. */
export async function ensureNamespace(address: string, namespace: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    try {
      await connection.workflowService.registerNamespace({
        namespace,
        workflowExecutionRetentionPeriod: msToTs(namespaceRetention),
      });
    } catch (error) {
      if ((error as { code?: number }).code !== alreadyExists) throw error;
    }
    await untilAnswered(() => connection.workflowService.listWorkflowExecutions({ namespace, pageSize: 1 }));
  } finally {
    await connection.close();
  }
}

/** Asks until the frontend answers, every half second for at most a minute (then its last refusal is thrown). */
async function untilAnswered(ask: () => Promise<unknown>): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await ask();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((done) => setTimeout(done, 500));
    }
  }
}

/**
 * Waits until the frontend accepts a query naming every one of `names`: a namespace's new search attributes reach
 * each service's namespace cache within seconds, and a workflow started before that would be refused.
 */
export async function waitUntilSearchable(address: string, namespace: string, names: string[]): Promise<void> {
  const connection = await Connection.connect({ address });
  const query = names.map((name) => `${name} = 'cluster-check'`).join(' AND ');
  try {
    await untilAnswered(() => connection.workflowService.listWorkflowExecutions({ namespace, pageSize: 1, query }));
  } finally {
    await connection.close();
  }
}
