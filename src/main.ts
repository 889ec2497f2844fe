// Entry point. Role `all` (the default) embeds PostgreSQL and the Temporal dev server unless DATABASE_URL /
// TEMPORAL_ADDRESS are given, then runs the API and a worker in this process; `api` and `worker` run one role
// against infrastructure that runs elsewhere. Shutdown stops everything in reverse order of start.
import { once } from 'node:events';
import type { Server } from 'node:http';
import { join, resolve } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createApp } from './app.ts';
import { type Catalog, CatalogError, loadCatalog } from './catalog/catalog.ts';
import { type Config, ConfigError, loadConfig, publicBaseUrl } from './config.ts';
import { applyMigrations } from './db/migrate.ts';
import { createPrisma } from './db/prisma.ts';
import { databaseProbe, temporalProbe } from './health.ts';
import { startEmbeddedPostgres } from './infra/embedded-postgres.ts';
import { startTemporalDevServer } from './infra/temporal-dev-server.ts';
import { temporalCliPath } from './infra/tools.ts';
import { createLogger, type Logger } from './logger.ts';
import { createLocalStorage, filesDirectory } from './storage/local-storage.ts';
import { installTemporalRuntimeLogger, startWorker } from './worker.ts';

type Stop = () => Promise<unknown>;

const drainMs = 10_000;

/** Stops taking connections, lets requests in flight finish (up to drainMs), then cuts what is left. */
function closeServer(server: Server): Promise<void> {
  return new Promise((done) => {
    const force = setTimeout(() => server.closeAllConnections(), drainMs);
    server.close(() => {
      clearTimeout(force);
      done();
    });
    server.closeIdleConnections();
  });
}

async function start(config: Config, catalog: Catalog, logger: Logger, stops: Stop[]): Promise<string[]> {
  const dataDir = resolve(config.DATA_DIR);
  const banner: string[] = [];

  let databaseUrl = config.DATABASE_URL;
  if (!databaseUrl) {
    const database = await startEmbeddedPostgres({
      dataDir: join(dataDir, 'postgres'), port: config.EMBEDDED_POSTGRES_PORT, database: 'gateway', logger,
    });
    stops.push(database.stop);
    databaseUrl = database.url;
    banner.push(`PostgreSQL    embedded, 127.0.0.1:${config.EMBEDDED_POSTGRES_PORT} (data in ${join(dataDir, 'postgres')})`);
  }
  const applied = await applyMigrations(databaseUrl);
  if (applied.length > 0) logger.info({ applied }, 'migrations applied');

  let temporalAddress = config.TEMPORAL_ADDRESS;
  if (!temporalAddress) {
    const devServer = await startTemporalDevServer({
      cliPath: config.TEMPORAL_CLI_PATH ?? temporalCliPath, dataDir: join(dataDir, 'temporal'),
      port: config.TEMPORAL_DEV_SERVER_PORT, uiPort: config.TEMPORAL_UI_PORT, namespace: config.TEMPORAL_NAMESPACE, logger,
    });
    stops.push(devServer.stop);
    temporalAddress = devServer.address;
    banner.push(`Temporal UI   ${devServer.uiUrl}   (dev server ${devServer.address}, data in ${join(dataDir, 'temporal')})`);
  } else {
    banner.push(`Temporal      ${temporalAddress} (namespace ${config.TEMPORAL_NAMESPACE})`);
  }

  const prisma = createPrisma(databaseUrl);
  stops.push(() => prisma.$disconnect());
  const storage = createLocalStorage(filesDirectory(dataDir), publicBaseUrl(config));
  installTemporalRuntimeLogger(logger);

  if (config.GATEWAY_ROLE !== 'api') {
    const worker = startWorker({ config, temporalAddress, prisma, catalog, storage, logger });
    stops.push(worker.stop);
    banner.push(`Worker        task queue ${config.TEMPORAL_TASK_QUEUE}`);
  }

  if (config.GATEWAY_ROLE !== 'worker') {
    // Lazy: the API comes up (and /healthz reports it) even while Temporal is unreachable.
    const connection = Connection.lazy({ address: temporalAddress });
    stops.push(() => connection.close());
    const app = createApp({
      config,
      prisma,
      catalog,
      storage,
      temporal: { client: new Client({ connection, namespace: config.TEMPORAL_NAMESPACE }), taskQueue: config.TEMPORAL_TASK_QUEUE },
      logger,
      health: { database: databaseProbe(prisma), temporal: temporalProbe(connection, config.TEMPORAL_NAMESPACE) },
    });
    const server: Server = app.listen(config.PORT, config.HOST);
    await once(server, 'listening');
    stops.push(() => closeServer(server));
    const base = publicBaseUrl(config);
    banner.unshift(`API           ${base}/api/v1`, `Docs          ${base}/docs`, `Health        ${base}/healthz`);
  }
  return banner;
}

async function stopAll(stops: Stop[], logger: Logger): Promise<void> {
  for (const stop of stops.reverse()) {
    await stop().catch((error: unknown) => logger.warn({ err: error }, 'error while stopping'));
  }
}

async function main(): Promise<void> {
  let config: Config;
  let catalog: Catalog;
  try {
    config = loadConfig();
    catalog = loadCatalog();
  } catch (error) {
    if (!(error instanceof ConfigError || error instanceof CatalogError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
  const logger = createLogger(config);
  const stops: Stop[] = [];
  let starting: Promise<unknown> | undefined;
  let stopping: Promise<void> | undefined;
  const shutdown = (reason: string, exitCode: number) => {
    stopping ??= (async () => {
      logger.info({ reason }, 'shutting down');
      // A signal during start-up waits for what is starting, so it can be stopped too.
      await starting?.catch(() => undefined);
      await stopAll(stops, logger);
      logger.info('stopped');
      process.exit(exitCode);
    })();
    return stopping;
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void shutdown(signal, 0));

  try {
    starting = start(config, catalog, logger, stops);
    const banner = (await starting) as string[];
    if (stopping) return;
    console.log(`\nGeneration gateway is up (role ${config.GATEWAY_ROLE}):\n${banner.map((line) => `  ${line}`).join('\n')}\n  Press Ctrl-C to stop.\n`);
  } catch (error) {
    logger.fatal({ err: error }, 'start failed');
    console.error(`Start failed: ${(error as Error).message}`);
    await shutdown('start failed', 1);
  }
}

await main();
