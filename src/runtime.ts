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
import { x402BannerLines } from './payments/x402/banner.ts';
import { configuredStorage, describedStorage } from './storage/configured-storage.ts';
import { installTemporalRuntimeLogger, startWorker } from './worker.ts';
import { ensureDepositScanSchedules } from './orchestration/deposits/scan-schedules.ts';
import { checkSearchAttributes, devServerSearchAttributeArgs } from './orchestration/temporal/search-attributes.ts';
import { temporalTracing } from './orchestration/temporal/tracing.ts';
import { ensureTaskReconcilerSchedule } from './orchestration/generations/task-reconciler.ts';
import { ensureUploadExpirySchedule } from './orchestration/uploads/expiry-schedule.ts';
import { ensureOutputExpirySchedule } from './orchestration/outputs/expiry-schedule.ts';
import type { Stop } from './infra/processes/stops.ts';

// Pool connections still checked out (a query the cut-off worker abandoned, waiting on a lock) only end when
// PostgreSQL's fast shutdown, next, ends their sessions: do not wait for them here.
const disconnectWaitMs = 1_000;

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
  const dataDir = resolve(given.server.dataDir);
  await ensurePortsFree(listenPorts(given));
  const banner: string[] = [];
  // Tracing first, so it stops last and sends the spans of everything that stopped before it.
  const tracer = await startTracing(given.tracing, given.server.role);
  if (tracer) {
    stops.push({ name: 'tracing', stop: tracer.shutdown });
    banner.push(`Tracing       OTLP to ${given.tracing.otlpEndpoint} as ${tracer.serviceName}`);
  }
  const tracing = await temporalTracing(tracer);
  // First, so it stops last: deposits being confirmed keep reading it until the worker is gone.
  const chain = await startChains(given, dataDir, logger, stops);
  const config = chain.config;

  let databaseUrl = config.database.url;
  let embeddedDatabaseUrl: string | undefined;
  if (!databaseUrl) {
    const database = await startEmbeddedPostgres({
      dataDir: join(dataDir, 'postgres'),
      port: config.database.embeddedPort,
      database: 'gateway',
      logger,
    });
    stops.push({ name: 'postgres', stop: database.stop });
    databaseUrl = embeddedDatabaseUrl = database.url;
    banner.push(
      `PostgreSQL    embedded, 127.0.0.1:${config.database.embeddedPort} (data in ${join(dataDir, 'postgres')})`,
    );
  }
  const applied = await applyMigrations(databaseUrl);
  if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  const prisma = createPrisma(databaseUrl);
  stops.push({
    name: 'database pool',
    stop: () => Promise.race([prisma.$disconnect(), new Promise((done) => setTimeout(done, disconnectWaitMs))]),
  });
  const addressesStored = await storeMissingDepositAddresses(prisma, config.deposits.xpub);
  if (addressesStored > 0) logger.info({ agents: addressesStored }, 'deposit addresses stored');

  let temporalAddress = config.temporal.address;
  let temporalUiUrl: string | undefined;
  if (!temporalAddress) {
    const devServer = await startTemporalDevServer({
      cliPath: config.temporal.devServer.cliPath ?? temporalCliPath,
      dataDir: join(dataDir, 'temporal'),
      port: config.temporal.devServer.port,
      uiPort: config.temporal.devServer.uiPort,
      namespace: config.temporal.namespace,
      logger,
      extraArgs: [...devServerTuningArgs(config.temporal.devServer), ...devServerSearchAttributeArgs()],
    });
    stops.push({ name: 'temporal dev server', stop: devServer.stop });
    temporalAddress = devServer.address;
    temporalUiUrl = devServer.uiUrl;
    banner.push(
      `Temporal UI   ${devServer.uiUrl}   (dev server ${devServer.address}, data in ${join(dataDir, 'temporal')})`,
    );
  } else {
    banner.push(`Temporal      ${temporalAddress} (namespace ${config.temporal.namespace})`);
  }
  // Every workflow start sets them: a namespace without them is fixed now, or the start fails naming them.
  await checkSearchAttributes(temporalAddress, config.temporal.namespace, logger);

  banner.push(...chain.banner);
  if (config.server.role !== 'worker') banner.push(...x402BannerLines(config));
  const storage = configuredStorage(config.storage, dataDir, publicBaseUrl(config.server));
  banner.push(`Storage       ${describedStorage(config.storage, dataDir)}`);
  installTemporalRuntimeLogger(logger, temporalMetricsAddress(config));
  banner.push(...(await startMetrics(config, stops)));

  if (config.server.role !== 'api') {
    const worker = startWorker({ config, temporalAddress, prisma, catalog, storage, logger, tracing });
    stops.push({ name: 'worker', stop: worker.stop });
    banner.push(
      `Worker        task queues ${config.temporal.taskQueue} (providers: ${config.temporal.taskQueue}-<provider>), ${config.temporal.webhookTaskQueue}`,
    );
    banner.push(...(await startSchedules(config, temporalAddress, logger, stops)));
  }

  if (config.server.role !== 'worker') {
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
    stops.push({ name: 'api', stop: () => shutdownGate.close(server, shutdownBudget(config.server).requestsMs) });
    const base = publicBaseUrl(config.server);
    banner.unshift(`API           ${base}/api/v1`, `Docs          ${base}/docs`, `Health        ${base}/healthz`);
  }
  // Last, so it is removed first: while it exists, what it names is up.
  await writeRuntimeFile(dataDir, {
    pid: process.pid,
    role: config.server.role,
    apiUrl: config.server.role === 'worker' ? undefined : publicBaseUrl(config.server),
    databaseUrl: embeddedDatabaseUrl,
    temporalAddress,
    temporalNamespace: config.temporal.namespace,
    temporalUiUrl,
  });
  stops.push({ name: 'runtime file', stop: () => removeRuntimeFile(dataDir) });
  return { banner, config };
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
async function startMetrics(config: Config, stops: Stop[]): Promise<string[]> {
  const banner: string[] = [];
  if (config.metrics.port) {
    const metrics = await startMetricsServer({
      host: config.metrics.host,
      port: config.metrics.port,
      token: config.metrics.token,
    });
    stops.push({ name: 'metrics', stop: metrics.stop });
    banner.push(`Metrics       http://${config.metrics.host}:${config.metrics.port}/metrics`);
  }
  const temporal = temporalMetricsAddress(config);
  if (temporal) banner.push(`              http://${temporal}/metrics (Temporal SDK worker metrics)`);
  return banner;
}

/**
 * The worker's schedules: the task reconciler, upload and output expiry, and the deposit watcher's, one per enabled
 * chain. Without Temporal now, the next start makes them.
 */
async function startSchedules(config: Config, temporalAddress: string, logger: Logger, stops: Stop[]) {
  try {
    const connection = await Connection.connect({ address: temporalAddress });
    stops.push({ name: 'deposit watcher connection', stop: () => connection.close() });
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
