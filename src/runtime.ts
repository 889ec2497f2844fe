// The running service for a role: `all` embeds PostgreSQL and the Temporal dev server unless DATABASE_URL or
// TEMPORAL_ADDRESS are given, and the local development chain unless a chain has an RPC URL, then runs the API and
// a worker here on services built once (src/composition). Parts start in order and stop in the reverse one.
import { join, resolve } from 'node:path';
import type { Catalog } from './catalog/catalog.ts';
import { removeRuntimeFile, writeRuntimeFile } from './runtime-file.ts';
import { startChainPart } from './chain/start-chains.ts';
import { type Config, publicBaseUrl } from './config/config.ts';
import { applyMigrations } from './db/migrate.ts';
import { startEmbeddedPostgres } from './infra/embedded-postgres.ts';
import { ensurePortsFree, type ListenPort } from './infra/ports.ts';
import { startTracing } from './infra/tracing.ts';
import { devServerTuningArgs, startTemporalDevServer } from './infra/temporal-dev-server.ts';
import { temporalCliPath } from './infra/tools.ts';
import type { Logger } from './infra/logger.ts';
import { startMetricsServer } from './metrics/exposition.ts';
import { storeMissingDepositAddresses } from './deposits/addresses.ts';
import { paymentBannerLines } from './payments/methods/registered.ts';
import { describedStorage } from './storage/configured-storage.ts';
import { installTemporalRuntimeLogger } from './worker.ts';
import { buildSharedServices, type SharedServices } from './composition/shared-services.ts';
import { startApiRole } from './composition/api-role.ts';
import { startWorkerRole } from './composition/worker-role.ts';
import { embeddedTarget } from './use-cases/temporal/connection.ts';
import { checkSearchAttributes, devServerSearchAttributeArgs } from './use-cases/temporal/search-attributes.ts';
import { temporalTracing } from './use-cases/temporal/tracing.ts';
import { type Part, type Stop, startParts } from './infra/processes/stops.ts';

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
  /** The server the roles reach: the dev server's address when this process started one. */
  temporalAddress: string;
  temporalUiUrl?: string;
  services: SharedServices;
}

const roleRunsWorker = ({ config }: Runtime) => config.server.role !== 'api';
const roleRunsApi = ({ config }: Runtime) => config.server.role !== 'worker';

// `npm start`'s parts, started in this order and stopped in the reverse one.
const runtimeParts: Part<Runtime>[] = [
  // Tracing first, so it stops last and sends the spans of everything that stopped before it.
  { name: 'tracing', start: startTracingPart },
  // Before the rest, so it stops after them: deposits being confirmed keep reading it until the worker is gone.
  { name: 'chain', start: (runtime) => startChainPart(runtime, runtime.config) },
  { name: 'postgres', runs: ({ config }) => !config.database.url, start: startPostgresPart },
  { name: 'migrations', start: applyMigrationsPart },
  { name: 'temporal dev server', start: startTemporalPart },
  { name: 'shared services', start: buildServicesPart },
  { name: 'metrics', start: startMetricsPart },
  { name: 'worker', runs: roleRunsWorker, start: startWorkerPart },
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

async function applyMigrationsPart(runtime: Runtime) {
  const databaseUrl = (runtime.databaseUrl = runtime.config.database.url || runtime.embeddedDatabaseUrl!);
  const applied = await applyMigrations(databaseUrl);
  if (applied.length > 0) runtime.logger.info({ applied }, 'migrations applied');
}

/** The dev server unless a Temporal address is configured; the roles then reach whichever it is. */
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
    const temporal = { ...config.temporal, ...embeddedTarget(config.temporal, devServer.address) };
    runtime.config = { ...config, temporal };
    runtime.temporalAddress = devServer.address;
    runtime.temporalUiUrl = devServer.uiUrl;
    banner.push(
      `Temporal UI   ${devServer.uiUrl}   (dev server ${devServer.address}, data in ${join(dataDir, 'temporal')})`,
    );
  }
  try {
    // Every workflow start sets them: a namespace without them is fixed now, or the start fails naming them.
    await checkSearchAttributes(runtime.config.temporal, logger);
  } catch (error) {
    await stop?.();
    throw error;
  }
  return stop;
}

/** The services both roles share, built once; then the rest of the banner and Temporal's logger. */
async function buildServicesPart(runtime: Runtime) {
  const { config, catalog, logger, databaseUrl, tracing, dataDir, banner } = runtime;
  const stops: Stop[] = [];
  runtime.services = buildSharedServices({ config, catalog, logger, databaseUrl, tracing, dataDir }, stops);
  const addressesStored = await storeMissingDepositAddresses(runtime.services.prisma, config.deposits.xpub);
  if (addressesStored > 0) logger.info({ agents: addressesStored }, 'deposit addresses stored');
  banner.push(...runtime.chainBanner);
  if (config.server.role !== 'worker') banner.push(...paymentBannerLines(config));
  banner.push(`Storage       ${describedStorage(config.storage, dataDir)}`);
  installTemporalRuntimeLogger(logger, temporalMetricsAddress(config));
  return stops;
}

async function startWorkerPart(runtime: Runtime) {
  const stops: Stop[] = [];
  runtime.banner.push(...(await startWorkerRole(runtime.services, stops)));
  return stops;
}

async function startApiPart(runtime: Runtime) {
  const stops: Stop[] = [];
  // The API's addresses head the banner.
  runtime.banner.unshift(...(await startApiRole(runtime.services, stops)));
  return stops;
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
