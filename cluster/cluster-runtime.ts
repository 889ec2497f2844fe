// The scale-out layout on one machine (`npm run cluster`), each part its own process: PostgreSQL, an S3-compatible
// store, Temporal's own server on PostgreSQL and its Web UI, worker and api processes, Caddy in front of the api.
// With no chain configured, the local development chain too, for every process. Stops run in reverse order of start:
// the balancer, the api, the workers, Temporal, the store, PostgreSQL, the chain.
import { join, resolve } from 'node:path';
import { localChainEnvironment, startChains } from '../src/chain/start-chains.ts';
import { loadConfig, publicBaseUrl, shutdownBudget, type Config } from '../src/config/config.ts';
import { startEmbeddedPostgres } from '../src/infra/embedded-postgres.ts';
import { type ClusterPart, type Restartable, restartable, startAll } from './cluster-parts.ts';
import { clusterBinaries, ensureClusterTools } from './cluster-tools.ts';
import { type GatewayProcess, type SharedPieces, startGatewayProcess } from './gateway-processes.ts';
import { startCaddy } from './caddy.ts';
import { writeMetricsTargets } from './metrics-targets.ts';
import { clusterBanner } from './cluster-banner.ts';
import { clusterPublicPorts } from './public-ports.ts';
import { clusterSecrets } from './cluster-secrets.ts';
import { startObjectStore, storePorts, storeRegion } from './object-store.ts';
import type { SupervisedProcess } from '../src/infra/processes/supervised-process.ts';
import { setUpTemporalSchema } from './temporal-schema.ts';
import { ensureNamespace, startTemporalServer, temporalPorts, waitUntilSearchable } from './temporal-server.ts';
import { startTemporalUi } from './temporal-ui.ts';
import type { Logger } from '../src/infra/logger.ts';
import { ensurePortsFree, freePorts } from '../src/infra/ports.ts';
import { embeddedTarget } from '../src/orchestration/temporal/connection.ts';
import { checkSearchAttributes } from '../src/orchestration/temporal/search-attributes.ts';
import { paymentBannerLines } from '../src/payments/methods/registered.ts';
import { readRuntimeFile, removeRuntimeFile, writeRuntimeFile } from '../src/runtime-file.ts';
import type { Stop } from '../src/infra/processes/stops.ts';
import { searchAttributeKeys } from '../workflows/contracts/search-attributes.ts';
import { projectRoot } from '../src/infra/project-root.ts';

const dynamicConfigFile = join(projectRoot, 'deploy', 'temporal', 'dynamicconfig.yaml');

/** The configuration a cluster starts from: it runs every role itself, and embeds its database and Temporal. */
export const loadClusterConfig = (env: NodeJS.ProcessEnv): Config =>
  // GATEWAY_ROLE and a --role are for its processes, not for it.
  loadConfig({ ...env, GATEWAY_ROLE: 'all', DATABASE_URL: '', TEMPORAL_ADDRESS: '' }, []);

export interface StartedCluster {
  /** What `npm run cluster` prints once it is up. */
  banner: string[];
  /** Every process, to kill and start again (the fault suite), or to measure (the benchmark). */
  parts: ClusterPart[];
  /** The balancer's `…/api/v1`. */
  apiUrl: string;
  databaseUrl: string;
  temporalAddress: string;
}

/**
 * Starts the cluster; `stops` stops it. `environment` is what the api and worker processes start from (the
 * operator's, with provider keys and limits), below the cluster's own settings.
 */
export async function startCluster(
  given: Config,
  logger: Logger,
  stops: Stop[],
  environment: NodeJS.ProcessEnv = process.env,
): Promise<StartedCluster> {
  const dataDir = resolve(given.server.dataDir);
  const clusterDir = join(dataDir, 'cluster');
  const logDir = join(clusterDir, 'logs');
  const running = await readRuntimeFile(dataDir);
  if (running)
    throw new Error(
      `DATA_DIR ${dataDir} is in use by another ${running.role} start (pid ${running.pid}): stop it first`,
    );
  const { cluster, server } = given;
  const publicPorts = clusterPublicPorts(given);
  await ensurePortsFree(publicPorts);
  await ensureClusterTools((line) => console.log(`[cluster] ${line}`));
  const taken = publicPorts.map(({ port }) => port);
  // Internal listeners: free now, and distinct from every port handed out before.
  const pickPorts = async (count: number) => {
    const ports = await freePorts(count, taken);
    taken.push(...ports);
    return ports;
  };
  const state = { stopping: false };
  // A process that dies while the cluster runs is reported; the balancer routes around a dead api process.
  const supervise = (proc: SupervisedProcess) =>
    void proc.exited.then((code) => {
      if (!state.stopping) logger.warn({ process: proc.name, code, log: proc.logFile }, 'a cluster process exited');
    });

  // First, so it stops last: deposits being confirmed read it until the workers are gone.
  const chain = await startChains(given, dataDir, logger, stops);
  const config = chain.config;

  const parts: ClusterPart[] = [];
  const secrets = await clusterSecrets(clusterDir);
  const postgresPiece = await restartable(
    'postgres',
    () =>
      startEmbeddedPostgres({
        dataDir: join(clusterDir, 'postgres'),
        port: config.database.embeddedPort,
        database: 'gateway',
        logger,
        password: secrets.postgresPassword,
        // Clusters started before each had its own password had npm start's.
        formerPassword: 'gateway',
      }),
    ({ pid }) => pid,
  );
  parts.push(postgresPiece.part);
  stops.push({ name: 'postgres', stop: () => postgresPiece.current().stop() });
  const database = postgresPiece.current();
  const databaseUrl = new URL(database.url);
  const postgres = {
    host: databaseUrl.hostname,
    port: Number(databaseUrl.port),
    user: decodeURIComponent(databaseUrl.username),
    password: decodeURIComponent(databaseUrl.password),
  };
  await setUpTemporalSchema(clusterBinaries.temporalSqlTool, clusterBinaries.temporalSchemaDir, postgres);

  const bucket = config.storage.s3.bucket || 'gateway';
  // Each piece below is started again (by part.start()) with the same options: its data, its ports.
  const supervised = async <T extends { process: SupervisedProcess }>(name: string, start: () => Promise<T>) => {
    const piece = await restartable(
      name,
      start,
      ({ process }) => process.pid,
      ({ process }) => supervise(process),
    );
    parts.push(piece.part);
    return piece;
  };
  const storeOptions = {
    binary: clusterBinaries.weed,
    dataDir: join(clusterDir, 'objects'),
    logDir,
    bucket,
    ports: await storePorts(cluster.s3Port, pickPorts),
    identity: { accessKeyId: secrets.storeAccessKeyId, secretAccessKey: secrets.storeSecretAccessKey },
  };
  const storePiece = await supervised('objects', () => startObjectStore(storeOptions));
  stops.push({ name: 'object store', stop: () => storePiece.current().process.stop(5_000) });
  const store = storePiece.current();

  const temporalOptions = {
    binary: clusterBinaries.temporalServer,
    dataDir: join(clusterDir, 'temporal'),
    logDir,
    postgres,
    dynamicConfigFile,
    ports: await temporalPorts(cluster.temporalPort, pickPorts),
  };
  const temporalPiece = await supervised('temporal', () => startTemporalServer(temporalOptions));
  stops.push({ name: 'temporal', stop: () => temporalPiece.current().process.stop(10_000) });
  const temporal = temporalPiece.current();
  const { namespace } = config.temporal;
  await ensureNamespace(temporal.address, namespace);
  await checkSearchAttributes(embeddedTarget(config.temporal, temporal.address), logger);
  await waitUntilSearchable(
    temporal.address,
    namespace,
    searchAttributeKeys.map(({ name }) => name),
  );

  const publicUrl = publicBaseUrl(server);
  const uiOptions = {
    binary: clusterBinaries.temporalUiServer,
    temporalAddress: temporal.address,
    port: config.temporal.devServer.uiPort,
    corsOrigin: publicUrl,
    namespace,
    dataDir: join(clusterDir, 'temporal-ui'),
    logDir,
  };
  const uiPiece = await supervised('temporal-ui', () => startTemporalUi(uiOptions));
  stops.push({ name: 'temporal ui', stop: () => uiPiece.current().process.stop(5_000) });
  const ui = uiPiece.current();

  const shared: SharedPieces = {
    databaseUrl: database.url,
    temporalAddress: temporal.address,
    publicBaseUrl: publicUrl,
    storage: {
      STORAGE_DRIVER: 's3',
      S3_BUCKET: bucket,
      S3_FORCE_PATH_STYLE: 'true',
      AWS_ENDPOINT_URL_S3: store.endpoint,
      AWS_REGION: storeRegion,
      AWS_ACCESS_KEY_ID: storeOptions.identity.accessKeyId,
      AWS_SECRET_ACCESS_KEY: storeOptions.identity.secretAccessKey,
    },
    chain: localChainEnvironment(config),
    environment,
  };
  // Each stops within its own shutdown grace (SHUTDOWN_GRACE_SECONDS); a little more, then it is killed.
  const processGraceMs = shutdownBudget(server).graceMs + 5_000;
  const gateway: Restartable<GatewayProcess>[] = [];
  const stopRole = (role: GatewayProcess['role']) => () =>
    Promise.all(
      gateway
        .map((piece) => piece.current())
        .filter((each) => each.role === role)
        .map(({ process }) => process.stop(processGraceMs)),
    );
  stops.push({ name: 'worker processes', stop: stopRole('worker') });
  stops.push({ name: 'api processes', stop: stopRole('api') });
  const apiPorts = await pickPorts(cluster.apiProcesses);
  const apiMetricsPorts = await pickPorts(cluster.apiProcesses);
  // Two each: the process's metrics, and its Temporal SDK worker metrics.
  const workerMetricsPorts = await pickPorts(2 * cluster.workerProcesses);
  const common = { shared, dataDir: clusterDir, logDir };
  const numbered = (count: number) => Array.from({ length: count }, (_, index) => index + 1);
  // Together: each applies the migrations under an advisory lock, so whichever comes first does, once.
  // Supervised only once all are up: one that fails to start is stopped, not reported as exited.
  const gatewayPiece = (options: Parameters<typeof startGatewayProcess>[0]) => () =>
    restartable(
      options.name,
      () => startGatewayProcess(options),
      ({ process }) => process.pid,
    );
  await startAll(
    [
      ...numbered(cluster.workerProcesses).map((n) =>
        gatewayPiece({
          ...common,
          name: `worker-${n}`,
          role: 'worker',
          metricsPort: workerMetricsPorts[2 * n - 2]!,
          temporalMetricsPort: workerMetricsPorts[2 * n - 1],
        }),
      ),
      ...numbered(cluster.apiProcesses).map((n) =>
        gatewayPiece({
          ...common,
          name: `api-${n}`,
          role: 'api',
          port: apiPorts[n - 1],
          metricsPort: apiMetricsPorts[n - 1]!,
        }),
      ),
    ],
    gateway,
  );
  const byName = (a: GatewayProcess, b: GatewayProcess) => a.name.localeCompare(b.name, 'en', { numeric: true });
  const started = gateway.map((piece) => piece.current());
  const workers = started.filter(({ role }) => role === 'worker').sort(byName);
  const apis = started.filter(({ role }) => role === 'api').sort(byName);
  for (const { process } of [...workers, ...apis]) supervise(process);
  await writeMetricsTargets(clusterDir, config.metrics.host, [...apis, ...workers]);
  // Later starts (part.start()) are supervised as they come.
  for (const piece of gateway.sort((a, b) => byName(a.current(), b.current())))
    parts.push({ ...piece.part, start: () => piece.part.start().then(() => supervise(piece.current().process)) });

  const caddyOptions = {
    binary: clusterBinaries.caddy,
    dataDir: clusterDir,
    logDir,
    host: server.host,
    port: server.port,
    backends: apis.map(({ name, port }) => ({ name, port: port! })),
  };
  const caddyPiece = await supervised('caddy', async () => ({ process: await startCaddy(caddyOptions) }));
  stops.push({
    name: 'caddy',
    stop: () => caddyPiece.current().process.stop(shutdownBudget(server).requestsMs),
  });
  const balancer = caddyPiece.current().process;

  // Last, so it is removed first: while it exists, what it names is up.
  await writeRuntimeFile(dataDir, {
    pid: process.pid,
    role: 'cluster',
    apiUrl: publicUrl,
    databaseUrl: database.url,
    temporalAddress: temporal.address,
    temporalNamespace: namespace,
    temporalUiUrl: ui.url,
  });
  stops.push({
    name: 'runtime file',
    stop: () => {
      state.stopping = true;
      return removeRuntimeFile(dataDir);
    },
  });

  const banner = clusterBanner({
    config,
    publicUrl,
    clusterDir,
    logDir,
    balancer,
    apis,
    workers,
    ui,
    temporal,
    postgres: { ...postgres, pid: database.pid },
    store: { ...store, bucket },
    chain: chain.banner,
    x402: paymentBannerLines(config),
  });
  return { banner, parts, apiUrl: `${publicUrl}/api/v1`, databaseUrl: database.url, temporalAddress: temporal.address };
}
