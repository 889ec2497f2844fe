// The running service for a role: `all` embeds PostgreSQL and the Temporal dev server unless DATABASE_URL or
// TEMPORAL_ADDRESS are given, and the local development chain unless a chain has an RPC URL, then runs the API and
// a worker here. Stops run in reverse order of start.
import { join, resolve } from 'node:path';
import type { Catalog } from './catalog/catalog.ts';
import { removeRuntimeFile, writeRuntimeFile } from './runtime-file.ts';
import { startChains } from './chain/start-chains.ts';
import { type Config, publicBaseUrl } from './config/config.ts';
import { applyMigrations } from './db/migrate.ts';
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
import { describedStorage } from './storage/configured-storage.ts';
import { installTemporalRuntimeLogger } from './worker.ts';
import { buildSharedServices } from './composition/shared-services.ts';
import { startApiRole } from './composition/api-role.ts';
import { startWorkerRole } from './composition/worker-role.ts';
import { embeddedTarget } from './orchestration/temporal/connection.ts';
import { checkSearchAttributes, devServerSearchAttributeArgs } from './orchestration/temporal/search-attributes.ts';
import { temporalTracing } from './orchestration/temporal/tracing.ts';
import type { Stop } from './infra/stops.ts';

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

  let temporal = config.temporal;
  let temporalUiUrl: string | undefined;
  let temporalAddress: string;
  if (!temporal.address) {
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
    temporal = { ...temporal, ...embeddedTarget(temporal, devServer.address) };
    temporalAddress = devServer.address;
    temporalUiUrl = devServer.uiUrl;
    banner.push(
      `Temporal UI   ${devServer.uiUrl}   (dev server ${devServer.address}, data in ${join(dataDir, 'temporal')})`,
    );
  } else {
    temporalAddress = temporal.address;
    banner.push(`Temporal      ${temporalAddress} (namespace ${temporal.namespace})`);
  }
  // Every workflow start sets them: a namespace without them is fixed now, or the start fails naming them.
  await checkSearchAttributes(temporal, logger);

  banner.push(...chain.banner);
  if (config.server.role !== 'worker') banner.push(...x402BannerLines(config));
  const services = buildSharedServices(
    { config: { ...config, temporal }, catalog, logger, databaseUrl, tracing, dataDir },
    stops,
  );
  const addressesStored = await storeMissingDepositAddresses(services.prisma, config.deposits.xpub);
  if (addressesStored > 0) logger.info({ agents: addressesStored }, 'deposit addresses stored');
  banner.push(`Storage       ${describedStorage(config.storage, dataDir)}`);
  installTemporalRuntimeLogger(logger, temporalMetricsAddress(config));
  banner.push(...(await startMetrics(config, stops)));

  if (config.server.role !== 'api') banner.push(...(await startWorkerRole(services, stops)));
  if (config.server.role !== 'worker') banner.unshift(...(await startApiRole(services, stops)));
  // Last, so it is removed first: while it exists, what it names is up.
  await writeRuntimeFile(dataDir, {
    pid: process.pid,
    role: config.server.role,
    apiUrl: config.server.role === 'worker' ? undefined : publicBaseUrl(config.server),
    databaseUrl: embeddedDatabaseUrl,
    temporalAddress,
    temporalNamespace: temporal.namespace,
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
