// The running service for a role: `all` embeds PostgreSQL and the Temporal dev server unless DATABASE_URL or
// TEMPORAL_ADDRESS are given, and the local development chain unless a chain has an RPC URL, then runs the API and
// a worker here. Stops run in reverse order of start.
import { once } from 'node:events';
import type { Server } from 'node:http';
import { join, resolve } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createApp, createShutdownGate } from './app.ts';
import type { Catalog } from './catalog/catalog.ts';
import { removeRuntimeFile, writeRuntimeFile } from './runtime-file.ts';
import { enabledChains } from './chain/settings.ts';
import { startChains } from './chain/start-chains.ts';
import { type Config, publicBaseUrl, shutdownBudget } from './config/config.ts';
import { applyMigrations } from './db/migrate.ts';
import { createPrisma } from './db/prisma.ts';
import { databaseProbe, temporalProbe } from './health.ts';
import { startEmbeddedPostgres } from './infra/embedded-postgres.ts';
import { ensurePortsFree, type ListenPort } from './infra/ports.ts';
import { startTracing } from './infra/tracing.ts';
import { startTemporalDevServer } from './infra/temporal-dev-server.ts';
import { devServerTuningArgs } from './infra/temporal-dev-tuning.ts';
import { temporalCliPath } from './infra/tools.ts';
import type { Logger } from './infra/logger.ts';
import { startMetricsServer } from './metrics/exposition.ts';
import { storeMissingDepositAddresses } from './payments/deposits/addresses.ts';
import { paymentBannerLines } from './payments/methods/registered.ts';
import { configuredStorage, describedStorage } from './storage/configured-storage.ts';
import { installTemporalRuntimeLogger, startWorker } from './worker.ts';
import { ensureDepositScanSchedules } from './orchestration/deposits/scan-schedules.ts';
import { checkSearchAttributes, devServerSearchAttributeArgs } from './orchestration/temporal/search-attributes.ts';
import { temporalTracing } from './orchestration/temporal/tracing.ts';
import { ensureTaskReconcilerSchedule } from './orchestration/generations/task-reconciler.ts';
import { ensureUploadExpirySchedule } from './orchestration/uploads/expiry-schedule.ts';
import { ensureOutputExpirySchedule } from './orchestration/outputs/expiry-schedule.ts';
import { type Part, type Stop, startParts } from './infra/processes/stops.ts';
import type { PrismaClient } from './db/prisma.ts';

// Pool connections still checked out (a query the cut-off worker abandoned, waiting on a lock) only end when
// PostgreSQL's fast shutdown, next, ends their sessions: do not wait for them here.
const disconnectWaitMs = 1_000;

/** What the parts of a start share: each adds what the later ones need. */
interface Runtime {
  config: Config;
  catalog: Catalog;
  logger: Logger;
  dataDir: string;
  banner: string[];
  tracer?: Awaited<ReturnType<typeof startTracing>>;
  tracing?: Awaited<ReturnType<typeof temporalTracing>>;
  chainBanner: string[];
  databaseUrl: string;
  embeddedDatabaseUrl?: string;
  prisma: PrismaClient;
  temporalAddress: string;
  temporalUiUrl?: string;
  storage: ReturnType<typeof configuredStorage>;
}

const roleRunsWorker = ({ config }: Runtime) => config.server.role !== 'api';
const roleRunsApi = ({ config }: Runtime) => config.server.role !== 'worker';

// `npm start`'s parts, started in this order and stopped in the reverse one.
const runtimeParts: Part<Runtime>[] = [
  // Tracing first, so it stops last and sends the spans of everything that stopped before it.
  { name: 'tracing', start: startTracingPart },
  // Before the rest, so it stops after them: deposits being confirmed keep reading it until the worker is gone.
  { name: 'chain', start: startChainPart },
  { name: 'postgres', runs: ({ config }) => !config.database.url, start: startPostgresPart },
  { name: 'database pool', start: startDatabasePart },
  { name: 'temporal dev server', start: startTemporalPart },
  { name: 'metrics', start: startMetricsPart },
  { name: 'worker', runs: roleRunsWorker, start: startWorkerPart },
  { name: 'deposit watcher connection', runs: roleRunsWorker, start: startSchedulesPart },
  { name: 'api', runs: roleRunsApi, start: startApiPart },
  // Last, so it is removed first: while it exists, what it names is up.
  { name: 'runtime file', start: writeRuntimeFilePart },
];

/**
 * Starts what the configuration asks for, pushing each part's stop onto `stops`. Returns the banner lines and the
 * configuration the API and the worker run with (the local chain's, when it runs).
 */
export async function startRuntime(
  given: Config,
  catalog: Catalog,
  logger: Logger,
  stops: Stop[],
): Promise<{ banner: string[]; config: Config }> {
  await ensurePortsFree(listenPorts(given));
  const runtime = {
    config: given,
    catalog,
    logger,
    dataDir: resolve(given.server.dataDir),
    banner: [],
    chainBanner: [],
  } as unknown as Runtime;
  await startParts(runtimeParts, runtime, stops);
  return { banner: runtime.banner, config: runtime.config };
}

async function startTracingPart(runtime: Runtime) {
  const { config, banner } = runtime;
  runtime.tracer = await startTracing(config.tracing, config.server.role);
  runtime.tracing = await temporalTracing(runtime.tracer);
  if (!runtime.tracer) return;
  banner.push(`Tracing       OTLP to ${config.tracing.otlpEndpoint} as ${runtime.tracer.serviceName}`);
  return runtime.tracer.shutdown;
}

async function startChainPart(runtime: Runtime) {
  const stops: Stop[] = [];
  const chain = await startChains(runtime.config, runtime.dataDir, runtime.logger, stops);
  runtime.config = chain.config;
  runtime.chainBanner = chain.banner;
  return stops;
}

async function startPostgresPart(runtime: Runtime) {
  const { config, dataDir } = runtime;
  const database = await startEmbeddedPostgres({
    dataDir: join(dataDir, 'postgres'),
    port: config.database.embeddedPort,
    database: 'gateway',
    logger: runtime.logger,
  });
  runtime.embeddedDatabaseUrl = database.url;
  runtime.banner.push(
    `PostgreSQL    embedded, 127.0.0.1:${config.database.embeddedPort} (data in ${join(dataDir, 'postgres')})`,
  );
  return database.stop;
}

async function startDatabasePart(runtime: Runtime) {
  const { config, logger } = runtime;
  const databaseUrl = (runtime.databaseUrl = config.database.url || runtime.embeddedDatabaseUrl!);
  const applied = await applyMigrations(databaseUrl);
  if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  const prisma = (runtime.prisma = createPrisma(databaseUrl));
  const addressesStored = await storeMissingDepositAddresses(prisma, config.deposits.xpub);
  if (addressesStored > 0) logger.info({ agents: addressesStored }, 'deposit addresses stored');
  return () => Promise.race([prisma.$disconnect(), new Promise((done) => setTimeout(done, disconnectWaitMs))]);
}

/** The dev server unless TEMPORAL_ADDRESS names a server; then the rest of the banner, storage and Temporal's logger. */
async function startTemporalPart(runtime: Runtime) {
  const { config, dataDir, banner, logger } = runtime;
  let stop: (() => Promise<void>) | undefined;
  if (config.temporal.address) {
    runtime.temporalAddress = config.temporal.address;
    banner.push(`Temporal      ${config.temporal.address} (namespace ${config.temporal.namespace})`);
  } else {
    const devServer = await startTemporalDevServer({
      cliPath: config.temporal.devServer.cliPath ?? temporalCliPath,
      dataDir: join(dataDir, 'temporal'),
      port: config.temporal.devServer.port,
      uiPort: config.temporal.devServer.uiPort,
      namespace: config.temporal.namespace,
      logger,
      extraArgs: [...devServerTuningArgs(config.temporal.devServer), ...devServerSearchAttributeArgs()],
    });
    stop = devServer.stop;
    runtime.temporalAddress = devServer.address;
    runtime.temporalUiUrl = devServer.uiUrl;
    banner.push(
      `Temporal UI   ${devServer.uiUrl}   (dev server ${devServer.address}, data in ${join(dataDir, 'temporal')})`,
    );
  }
  try {
    // Every workflow start sets them: a namespace without them is fixed now, or the start fails naming them.
    await checkSearchAttributes(runtime.temporalAddress, config.temporal.namespace, logger);
  } catch (error) {
    await stop?.();
    throw error;
  }
  banner.push(...runtime.chainBanner);
  if (config.server.role !== 'worker') banner.push(...paymentBannerLines(config));
  runtime.storage = configuredStorage(config.storage, dataDir, publicBaseUrl(config.server));
  banner.push(`Storage       ${describedStorage(config.storage, dataDir)}`);
  installTemporalRuntimeLogger(logger, temporalMetricsAddress(config));
  return stop;
}

async function startWorkerPart(runtime: Runtime) {
  const { config, temporalAddress, prisma, catalog, storage, logger, tracing } = runtime;
  const worker = startWorker({ config, temporalAddress, prisma, catalog, storage, logger, tracing });
  runtime.banner.push(
    `Worker        task queues ${config.temporal.taskQueue} (providers: ${config.temporal.taskQueue}-<provider>), ${config.temporal.webhookTaskQueue}`,
  );
  return worker.stop;
}

async function startApiPart(runtime: Runtime) {
  const { config, prisma, catalog, storage, logger, tracing, temporalAddress } = runtime;
  // Lazy: the API comes up (and /healthz reports it) even while Temporal is unreachable. Never closed: a request
  // answered 503 at shutdown may still be retrying a call on it, and grpc-js throws (uncaught) from a retry
  // timer that finds its channel closed. The process exit ends it.
  const connection = Connection.lazy({ address: temporalAddress });
  const shutdownGate = createShutdownGate();
  const app = createApp({
    config,
    prisma,
    catalog,
    storage,
    temporal: {
      client: new Client({
        connection,
        namespace: config.temporal.namespace,
        interceptors: tracing?.clientInterceptors,
      }),
      taskQueue: config.temporal.taskQueue,
    },
    logger,
    health: { database: databaseProbe(prisma), temporal: temporalProbe(connection, config.temporal.namespace) },
    shutdownGate,
  });
  const server: Server = app.listen(config.server.port, config.server.host);
  await once(server, 'listening');
  const base = publicBaseUrl(config.server);
  runtime.banner.unshift(`API           ${base}/api/v1`, `Docs          ${base}/docs`, `Health        ${base}/healthz`);
  return () => shutdownGate.close(server, shutdownBudget(config.server).requestsMs);
}

async function writeRuntimeFilePart(runtime: Runtime) {
  const { config, dataDir } = runtime;
  await writeRuntimeFile(dataDir, {
    pid: process.pid,
    role: config.server.role,
    apiUrl: config.server.role === 'worker' ? undefined : publicBaseUrl(config.server),
    databaseUrl: runtime.embeddedDatabaseUrl,
    temporalAddress: runtime.temporalAddress,
    temporalNamespace: config.temporal.namespace,
    temporalUiUrl: runtime.temporalUiUrl,
  });
  return () => removeRuntimeFile(dataDir);
}

/** The ports this process listens on itself (the dev server checks its own when it starts). */
function listenPorts(config: Config): ListenPort[] {
  const ports: ListenPort[] = [];
  if (config.server.role !== 'worker')
    ports.push({ setting: 'PORT', port: config.server.port, host: config.server.host, listener: 'the API' });
  if (config.metrics.port)
    ports.push({
      setting: 'METRICS_PORT',
      port: config.metrics.port,
      host: config.metrics.host,
      listener: 'the metrics endpoint',
    });
  return ports;
}

/** Where the Temporal SDK serves its worker metrics: only where a worker runs, and only when asked. */
const temporalMetricsAddress = (config: Config) =>
  config.metrics.temporalPort && config.server.role !== 'api'
    ? `${config.metrics.host}:${config.metrics.temporalPort}`
    : undefined;

/** The process's metrics on their own port (METRICS_PORT), whatever the role: a worker has no other HTTP. */
async function startMetricsPart({ config, banner }: Runtime) {
  let stop: (() => Promise<unknown>) | undefined;
  if (config.metrics.port) {
    const metrics = await startMetricsServer({
      host: config.metrics.host,
      port: config.metrics.port,
      token: config.metrics.token,
    });
    stop = metrics.stop;
    banner.push(`Metrics       http://${config.metrics.host}:${config.metrics.port}/metrics`);
  }
  const temporal = temporalMetricsAddress(config);
  if (temporal) banner.push(`              http://${temporal}/metrics (Temporal SDK worker metrics)`);
  return stop;
}

/**
 * The worker's schedules: the task reconciler, upload and output expiry, and the deposit watcher's, one per enabled
 * chain. Without Temporal now, the next start makes them.
 */
async function startSchedulesPart({ config, temporalAddress, logger, banner: lines }: Runtime) {
  let connection: Connection | undefined;
  lines.push(...(await startSchedules(config, temporalAddress, logger, (made) => (connection = made))));
  return connection && (() => connection!.close());
}

async function startSchedules(
  config: Config,
  temporalAddress: string,
  logger: Logger,
  connected: (connection: Connection) => void,
) {
  try {
    const connection = await Connection.connect({ address: temporalAddress });
    connected(connection);
    const client = new Client({ connection, namespace: config.temporal.namespace });
    const reconciler = await ensureTaskReconcilerSchedule(client, config);
    const uploadExpiry = await ensureUploadExpirySchedule(client, config);
    const outputExpiry = await ensureOutputExpirySchedule(client, config);
    const { retentionDays, expiryIntervalSeconds } = config.outputs;
    const banner = [
      `Reconciler    ${reconciler}: every ${config.reconciler.intervalSeconds} s, tasks queued over ${config.reconciler.afterSeconds} s are run or refunded`,
      `Uploads       ${uploadExpiry}: every ${config.uploads.expiryIntervalSeconds} s, expired uploads are deleted`,
      retentionDays > 0
        ? `Outputs       ${outputExpiry}: every ${expiryIntervalSeconds} s, outputs of tasks ended over ${retentionDays} days ago are deleted`
        : `Outputs       kept forever (OUTPUT_RETENTION_DAYS=0)`,
    ];
    if (enabledChains(config.chains).length === 0) return banner;
    const schedules = await ensureDepositScanSchedules(client, config);
    return [
      ...banner,
      `Watcher       ${schedules.join(', ')}: new USDC transfers to agents every ${config.deposits.scanIntervalSeconds} s`,
    ];
  } catch (error) {
    logger.warn(
      { err: error },
      'the schedules could not be made (task reconciler, upload and output expiry, deposit watcher); the next start makes them',
    );
    return [];
  }
}
