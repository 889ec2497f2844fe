// The running service for a role: `all` embeds PostgreSQL and the Temporal dev server unless DATABASE_URL or
// TEMPORAL_ADDRESS are given, then runs the API and a worker here. Stops run in reverse order of start.
import { once } from 'node:events';
import type { Server } from 'node:http';
import { join, resolve } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createApp } from './app.ts';
import type { Catalog } from './catalog/catalog.ts';
import { type Config, publicBaseUrl } from './config.ts';
import { applyMigrations } from './db/migrate.ts';
import { createPrisma } from './db/prisma.ts';
import { databaseProbe, temporalProbe } from './health.ts';
import { startEmbeddedPostgres } from './infra/embedded-postgres.ts';
import { startTemporalDevServer } from './infra/temporal-dev-server.ts';
import { temporalCliPath } from './infra/tools.ts';
import type { Logger } from './logger.ts';
import { createLocalStorage, filesDirectory } from './storage/local-storage.ts';
import { installTemporalRuntimeLogger, startWorker } from './worker.ts';

export type Stop = () => Promise<unknown>;

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

/** Starts what the configuration asks for, pushing each part's stop onto `stops`; returns the banner lines. */
export async function startRuntime(config: Config, catalog: Catalog, logger: Logger, stops: Stop[]): Promise<string[]> {
  const dataDir = resolve(config.DATA_DIR);
  const banner: string[] = [];

  let databaseUrl = config.DATABASE_URL;
  if (!databaseUrl) {
    const database = await startEmbeddedPostgres({
      dataDir: join(dataDir, 'postgres'),
      port: config.EMBEDDED_POSTGRES_PORT,
      database: 'gateway',
      logger,
    });
    stops.push(database.stop);
    databaseUrl = database.url;
    banner.push(
      `PostgreSQL    embedded, 127.0.0.1:${config.EMBEDDED_POSTGRES_PORT} (data in ${join(dataDir, 'postgres')})`,
    );
  }
  const applied = await applyMigrations(databaseUrl);
  if (applied.length > 0) logger.info({ applied }, 'migrations applied');

  let temporalAddress = config.TEMPORAL_ADDRESS;
  if (!temporalAddress) {
    const devServer = await startTemporalDevServer({
      cliPath: config.TEMPORAL_CLI_PATH ?? temporalCliPath,
      dataDir: join(dataDir, 'temporal'),
      port: config.TEMPORAL_DEV_SERVER_PORT,
      uiPort: config.TEMPORAL_UI_PORT,
      namespace: config.TEMPORAL_NAMESPACE,
      logger,
    });
    stops.push(devServer.stop);
    temporalAddress = devServer.address;
    banner.push(
      `Temporal UI   ${devServer.uiUrl}   (dev server ${devServer.address}, data in ${join(dataDir, 'temporal')})`,
    );
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
    banner.push(
      `Worker        task queues ${config.TEMPORAL_TASK_QUEUE} (providers: ${config.TEMPORAL_TASK_QUEUE}-<provider>), ${config.TEMPORAL_WEBHOOK_TASK_QUEUE}`,
    );
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
      temporal: {
        client: new Client({ connection, namespace: config.TEMPORAL_NAMESPACE }),
        taskQueue: config.TEMPORAL_TASK_QUEUE,
      },
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

export async function stopAll(stops: Stop[], logger: Logger): Promise<void> {
  for (const stop of stops.reverse()) {
    await stop().catch((error: unknown) => logger.warn({ err: error }, 'error while stopping'));
  }
}
