// The scale-out layout on one machine (`npm run cluster`), each part its own process: PostgreSQL, an S3-compatible
// store, Temporal's own server on PostgreSQL and its Web UI, worker and api processes, Caddy in front of the api.
// With no chain configured, the local development chain too, for every process. Parts start in order (clusterParts)
// and stop in the reverse one: the balancer, the api, the workers, Temporal, the store, PostgreSQL, the chain.
import { join, resolve } from 'node:path';
import { localChainEnvironment, startChainPart } from '../src/chain/start-chains.ts';
import { loadConfig, publicBaseUrl, shutdownBudget, type Config } from '../src/config/config.ts';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../src/infra/embedded-postgres.ts';
import { type ClusterPart, type Restartable, restartable, startAll } from './cluster-parts.ts';
import { clusterBinaries, ensureClusterTools } from './cluster-tools.ts';
import { type GatewayProcess, type SharedPieces, startGatewayProcess } from './gateway-processes.ts';
import { startCaddy } from './caddy.ts';
import { writeMetricsTargets } from './metrics-targets.ts';
import { clusterBanner } from './cluster-banner.ts';
import { clusterPublicPorts } from './public-ports.ts';
import { type ClusterSecrets, clusterSecrets } from './cluster-secrets.ts';
import { developmentTokenSecret } from '../src/accounts/oauth/signing-secret.ts';
import { startObjectStore, storePorts, storeRegion } from './object-store.ts';
import type { SupervisedProcess } from '../src/infra/processes/supervised-process.ts';
import { setUpTemporalSchema } from './temporal-schema.ts';
import { ensureNamespace, startTemporalServer, temporalPorts, waitUntilSearchable } from './temporal-server.ts';
import { startTemporalUi } from './temporal-ui.ts';
import type { Logger } from '../src/infra/logger.ts';
import { ensurePortsFree, freePorts } from '../src/infra/ports.ts';
import { embeddedTarget } from '../src/use-cases/temporal/connection.ts';
import { checkSearchAttributes } from '../src/use-cases/temporal/search-attributes.ts';
import { paymentBannerLines } from '../src/payments/methods/registered.ts';
import { readRuntimeFile, removeRuntimeFile, writeRuntimeFile } from '../src/runtime-file.ts';
import { type Part, type Stop, startParts } from '../src/infra/processes/stops.ts';
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

/** What the parts of a cluster share: each adds what the later ones need. */
interface Cluster {
  given: Config;
  /** The chain's configuration once it runs (startChains). */
  config: Config;
  logger: Logger;
  /** What the api and worker processes start from, below the cluster's own settings. */
  environment: NodeJS.ProcessEnv;
  /** The cluster's stops: the gateway processes' go on before they start, so a failed start still stops the rest. */
  stops: Stop[];
  dataDir: string;
  clusterDir: string;
  logDir: string;
  publicUrl: string;
  /** Internal listeners: free now, and distinct from every port handed out before. */
  pickPorts: (count: number) => Promise<number[]>;
  /** Set once the cluster stops: a process exiting then is expected, not reported. */
  stopping: boolean;
  /** Every process, in start order, for the fault suite and the benchmark. */
  parts: ClusterPart[];
  chainBanner: string[];
  secrets: ClusterSecrets;
  /** The OAuth token secret every api process shares: the operator's, or one made for this data directory. */
  oauthTokenSecret: string;
  database: EmbeddedDatabase;
  postgres: { host: string; port: number; user: string; password: string };
  bucket: string;
  store: Awaited<ReturnType<typeof startObjectStore>>;
  temporal: Awaited<ReturnType<typeof startTemporalServer>>;
  ui: Awaited<ReturnType<typeof startTemporalUi>>;
  workers: GatewayProcess[];
  apis: GatewayProcess[];
  balancer: SupervisedProcess;
}

// `npm run cluster`'s parts, started in this order and stopped in the reverse one.
const clusterParts: Part<Cluster>[] = [
  // First, so it stops last: deposits being confirmed read it until the workers are gone.
  { name: 'chain', start: (cluster) => startChainPart(cluster, cluster.given) },
  { name: 'secrets', start: readSecretsPart },
  { name: 'postgres', start: startPostgresPart },
  { name: 'temporal schema', start: setUpTemporalSchemaPart },
  { name: 'object store', start: startObjectStorePart },
  { name: 'temporal', start: startTemporalPart },
  { name: 'namespace', start: prepareNamespacePart },
  { name: 'temporal ui', start: startTemporalUiPart },
  { name: 'gateway processes', start: startGatewayProcessesPart },
  { name: 'metrics targets', start: writeMetricsTargetsPart },
  { name: 'caddy', start: startCaddyPart },
  // Last, so it is removed first: while it exists, what it names is up.
  { name: 'runtime file', start: writeRuntimeFilePart },
];

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
  const running = await readRuntimeFile(dataDir);
  if (running)
    throw new Error(
      `DATA_DIR ${dataDir} is in use by another ${running.role} start (pid ${running.pid}): stop it first`,
    );
  const publicPorts = clusterPublicPorts(given);
  await ensurePortsFree(publicPorts);
  await ensureClusterTools((line) => console.log(`[cluster] ${line}`));
  const taken = publicPorts.map(({ port }) => port);
  const pickPorts = async (count: number) => {
    const ports = await freePorts(count, taken);
    taken.push(...ports);
    return ports;
  };
  const cluster = {
    given,
    config: given,
    logger,
    environment,
    stops,
    dataDir,
    clusterDir,
    logDir: join(clusterDir, 'logs'),
    publicUrl: publicBaseUrl(given.server),
    pickPorts,
    stopping: false,
    parts: [],
  } as unknown as Cluster;
  await startParts(clusterParts, cluster, stops);
  const { publicUrl, database, temporal } = cluster;
  return {
    banner: clusterBannerOf(cluster),
    parts: cluster.parts,
    apiUrl: `${publicUrl}/api/v1`,
    databaseUrl: database.url,
    temporalAddress: temporal.address,
  };
}

// A process that dies while the cluster runs is reported; the balancer routes around a dead api process.
function supervise(cluster: Cluster, proc: SupervisedProcess): void {
  void proc.exited.then((code) => {
    if (!cluster.stopping)
      cluster.logger.warn({ process: proc.name, code, log: proc.logFile }, 'a cluster process exited');
  });
}

/** Starts a piece that part.start() starts again with the same options (its data, its ports), supervised. */
async function supervisedPiece<T extends { process: SupervisedProcess }>(
  cluster: Cluster,
  name: string,
  start: () => Promise<T>,
): Promise<Restartable<T>> {
  const piece = await restartable(
    name,
    start,
    ({ process }) => process.pid,
    ({ process }) => supervise(cluster, process),
  );
  cluster.parts.push(piece.part);
  return piece;
}

async function readSecretsPart(cluster: Cluster) {
  cluster.secrets = await clusterSecrets(cluster.clusterDir);
  cluster.oauthTokenSecret = cluster.given.oauth.tokenSecret ?? (await developmentTokenSecret(cluster.clusterDir));
}

async function startPostgresPart(cluster: Cluster) {
  const { clusterDir, config, logger, secrets } = cluster;
  const piece = await restartable(
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
  cluster.parts.push(piece.part);
  cluster.database = piece.current();
  const databaseUrl = new URL(cluster.database.url);
  cluster.postgres = {
    host: databaseUrl.hostname,
    port: Number(databaseUrl.port),
    user: decodeURIComponent(databaseUrl.username),
    password: decodeURIComponent(databaseUrl.password),
  };
  return () => piece.current().stop();
}

async function setUpTemporalSchemaPart({ postgres }: Cluster) {
  await setUpTemporalSchema(clusterBinaries.temporalSqlTool, clusterBinaries.temporalSchemaDir, postgres);
}

async function startObjectStorePart(cluster: Cluster) {
  const { config, clusterDir, logDir, secrets } = cluster;
  cluster.bucket = config.storage.s3.bucket || 'gateway';
  const storeOptions = {
    binary: clusterBinaries.weed,
    dataDir: join(clusterDir, 'objects'),
    logDir,
    bucket: cluster.bucket,
    ports: await storePorts(cluster.given.cluster.s3Port, cluster.pickPorts),
    identity: { accessKeyId: secrets.storeAccessKeyId, secretAccessKey: secrets.storeSecretAccessKey },
  };
  const piece = await supervisedPiece(cluster, 'objects', () => startObjectStore(storeOptions));
  cluster.store = piece.current();
  return () => piece.current().process.stop(5_000);
}

async function startTemporalPart(cluster: Cluster) {
  const { clusterDir, logDir, postgres } = cluster;
  const temporalOptions = {
    binary: clusterBinaries.temporalServer,
    dataDir: join(clusterDir, 'temporal'),
    logDir,
    postgres,
    dynamicConfigFile,
    ports: await temporalPorts(cluster.given.cluster.temporalPort, cluster.pickPorts),
  };
  const piece = await supervisedPiece(cluster, 'temporal', () => startTemporalServer(temporalOptions));
  cluster.temporal = piece.current();
  return () => piece.current().process.stop(10_000);
}

/** The namespace registered, and its search attributes there and searchable: every workflow start sets them. */
async function prepareNamespacePart({ config, temporal, logger }: Cluster) {
  const { namespace } = config.temporal;
  await ensureNamespace(temporal.address, namespace);
  await checkSearchAttributes(embeddedTarget(config.temporal, temporal.address), logger);
  await waitUntilSearchable(
    temporal.address,
    namespace,
    searchAttributeKeys.map(({ name }) => name),
  );
}

async function startTemporalUiPart(cluster: Cluster) {
  const { config, clusterDir, logDir, temporal } = cluster;
  const uiOptions = {
    binary: clusterBinaries.temporalUiServer,
    temporalAddress: temporal.address,
    port: config.temporal.devServer.uiPort,
    corsOrigin: cluster.publicUrl,
    namespace: config.temporal.namespace,
    dataDir: join(clusterDir, 'temporal-ui'),
    logDir,
  };
  const piece = await supervisedPiece(cluster, 'temporal-ui', () => startTemporalUi(uiOptions));
  cluster.ui = piece.current();
  return () => piece.current().process.stop(5_000);
}

/** What every api and worker process starts with: where the database, Temporal, the store and the chain are. */
function sharedPieces(cluster: Cluster): SharedPieces {
  const { config, secrets, store, bucket } = cluster;
  return {
    databaseUrl: cluster.database.url,
    temporalAddress: cluster.temporal.address,
    publicBaseUrl: cluster.publicUrl,
    storage: {
      STORAGE_DRIVER: 's3',
      S3_BUCKET: bucket,
      S3_FORCE_PATH_STYLE: 'true',
      AWS_ENDPOINT_URL_S3: store.endpoint,
      AWS_REGION: storeRegion,
      AWS_ACCESS_KEY_ID: secrets.storeAccessKeyId,
      AWS_SECRET_ACCESS_KEY: secrets.storeSecretAccessKey,
    },
    chain: localChainEnvironment(config),
    environment: { ...cluster.environment, OAUTH_TOKEN_SECRET: cluster.oauthTokenSecret },
  };
}

const byName = (a: GatewayProcess, b: GatewayProcess) => a.name.localeCompare(b.name, 'en', { numeric: true });
const numbered = (count: number) => Array.from({ length: count }, (_, index) => index + 1);

/**
 * The worker and api processes, started together: each applies the migrations under an advisory lock, so whichever
 * comes first does, once. Their stops go on first, so one that started is stopped even when another failed.
 */
async function startGatewayProcessesPart(cluster: Cluster) {
  const { given, clusterDir, logDir, pickPorts } = cluster;
  const { cluster: counts, server } = given;
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
  cluster.stops.push({ name: 'worker processes', stop: stopRole('worker') });
  cluster.stops.push({ name: 'api processes', stop: stopRole('api') });
  const apiPorts = await pickPorts(counts.apiProcesses);
  const apiMetricsPorts = await pickPorts(counts.apiProcesses);
  // Two each: the process's metrics, and its Temporal SDK worker metrics.
  const workerMetricsPorts = await pickPorts(2 * counts.workerProcesses);
  const common = { shared: sharedPieces(cluster), dataDir: clusterDir, logDir };
  // Supervised only once all are up: one that fails to start is stopped, not reported as exited.
  const gatewayPiece = (options: Parameters<typeof startGatewayProcess>[0]) => () =>
    restartable(
      options.name,
      () => startGatewayProcess(options),
      ({ process }) => process.pid,
    );
  await startAll(
    [
      ...numbered(counts.workerProcesses).map((n) =>
        gatewayPiece({
          ...common,
          name: `worker-${n}`,
          role: 'worker',
          metricsPort: workerMetricsPorts[2 * n - 2]!,
          temporalMetricsPort: workerMetricsPorts[2 * n - 1],
        }),
      ),
      ...numbered(counts.apiProcesses).map((n) =>
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
  superviseGatewayProcesses(cluster, gateway);
}

/** Supervises the started processes, and lists them as parts whose later starts (part.start()) are supervised too. */
function superviseGatewayProcesses(cluster: Cluster, gateway: Restartable<GatewayProcess>[]): void {
  const started = gateway.map((piece) => piece.current());
  cluster.workers = started.filter(({ role }) => role === 'worker').sort(byName);
  cluster.apis = started.filter(({ role }) => role === 'api').sort(byName);
  for (const { process } of [...cluster.workers, ...cluster.apis]) supervise(cluster, process);
  for (const piece of gateway.sort((a, b) => byName(a.current(), b.current())))
    cluster.parts.push({
      ...piece.part,
      start: () => piece.part.start().then(() => supervise(cluster, piece.current().process)),
    });
}

async function writeMetricsTargetsPart({ clusterDir, config, apis, workers }: Cluster) {
  await writeMetricsTargets(clusterDir, config.metrics.host, [...apis, ...workers]);
}

async function startCaddyPart(cluster: Cluster) {
  const { server } = cluster.given;
  const caddyOptions = {
    binary: clusterBinaries.caddy,
    dataDir: cluster.clusterDir,
    logDir: cluster.logDir,
    host: server.host,
    port: server.port,
    backends: cluster.apis.map(({ name, port }) => ({ name, port: port! })),
  };
  const piece = await supervisedPiece(cluster, 'caddy', async () => ({ process: await startCaddy(caddyOptions) }));
  cluster.balancer = piece.current().process;
  return () => piece.current().process.stop(shutdownBudget(server).requestsMs);
}

async function writeRuntimeFilePart(cluster: Cluster) {
  const { dataDir, config } = cluster;
  await writeRuntimeFile(dataDir, {
    pid: process.pid,
    role: 'cluster',
    apiUrl: cluster.publicUrl,
    databaseUrl: cluster.database.url,
    temporalAddress: cluster.temporal.address,
    temporalNamespace: config.temporal.namespace,
    temporalUiUrl: cluster.ui.url,
  });
  return () => {
    cluster.stopping = true;
    return removeRuntimeFile(dataDir);
  };
}

function clusterBannerOf(cluster: Cluster): string[] {
  const { config, postgres, database, store, bucket } = cluster;
  return clusterBanner({
    config,
    publicUrl: cluster.publicUrl,
    clusterDir: cluster.clusterDir,
    logDir: cluster.logDir,
    balancer: cluster.balancer,
    apis: cluster.apis,
    workers: cluster.workers,
    ui: cluster.ui,
    temporal: cluster.temporal,
    postgres: { ...postgres, pid: database.pid },
    store: { ...store, bucket },
    chain: cluster.chainBanner,
    x402: paymentBannerLines(config),
  });
}
