// The scale-out layout on one machine (`npm run cluster`), each part its own process: PostgreSQL, an S3-compatible
// store, Temporal's own server on PostgreSQL and its Web UI, worker and api processes, HAProxy in front of the api.
// With no chain configured, the local development chain too, for every process. Stops run in reverse order of start:
// the balancer, the api, the workers, Temporal, the store, PostgreSQL, the chain.
import { join, resolve } from 'node:path';
import { localChainEnvironment, startChains } from './chain/start-chains.ts';
import { publicBaseUrl, shutdownBudget, type Config } from './config/config.ts';
import { startEmbeddedPostgres } from './infra/embedded-postgres.ts';
import { clusterBinaries, ensureClusterTools } from './infra/cluster/cluster-tools.ts';
import { freePorts } from './infra/free-ports.ts';
import { type GatewayProcess, type SharedPieces, startGatewayProcess } from './infra/cluster/gateway-processes.ts';
import { findHaproxy, startHaproxy } from './infra/cluster/haproxy.ts';
import { startObjectStore, storeCredentials, storePorts } from './infra/cluster/object-store.ts';
import type { SupervisedProcess } from './infra/cluster/supervised-process.ts';
import { setUpTemporalSchema } from './infra/cluster/temporal-schema.ts';
import {
  ensureNamespace,
  startTemporalServer,
  temporalPorts,
  waitUntilSearchable,
} from './infra/cluster/temporal-server.ts';
import { startTemporalUi } from './infra/cluster/temporal-ui.ts';
import { historyShards, temporalServerVersion } from './infra/cluster/versions.ts';
import type { Logger } from './infra/logger.ts';
import { ensurePortsFree } from './infra/ports.ts';
import { checkSearchAttributes } from './orchestration/temporal/search-attributes.ts';
import { x402BannerLines } from './payments/x402/banner.ts';
import { readRuntimeFile, removeRuntimeFile, writeRuntimeFile } from './runtime-file.ts';
import type { Stop } from './infra/stops.ts';
import { searchAttributeKeys } from '../workflows/search-attributes.ts';

const dynamicConfigFile = join(import.meta.dirname, '..', 'deploy', 'temporal', 'dynamicconfig.yaml');

/**
 * Runs every start at once and waits for all of them, so each one that started is in `started` (and stoppable) even
 * when another failed; then throws the first failure.
 */
async function startAll<T>(starts: (() => Promise<T>)[], started: T[]): Promise<void> {
  const outcomes = await Promise.allSettled(
    starts.map(async (start) => {
      const value = await start();
      started.push(value);
      return value;
    }),
  );
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
}

export async function startCluster(given: Config, logger: Logger, stops: Stop[]): Promise<string[]> {
  const dataDir = resolve(given.server.dataDir);
  const clusterDir = join(dataDir, 'cluster');
  const logDir = join(clusterDir, 'logs');
  const running = await readRuntimeFile(dataDir);
  if (running)
    throw new Error(
      `DATA_DIR ${dataDir} is in use by another ${running.role} start (pid ${running.pid}): stop it first`,
    );
  const { cluster, server } = given;
  const publicPorts = [
    { setting: 'PORT', port: server.port, host: server.host, listener: 'the load balancer' },
    {
      setting: 'EMBEDDED_POSTGRES_PORT',
      port: given.database.embeddedPort,
      host: '127.0.0.1',
      listener: 'PostgreSQL',
    },
    { setting: 'CLUSTER_TEMPORAL_PORT', port: cluster.temporalPort, host: '127.0.0.1', listener: 'Temporal' },
    {
      setting: 'TEMPORAL_UI_PORT',
      port: given.temporal.devServer.uiPort,
      host: '127.0.0.1',
      listener: 'the Temporal UI',
    },
    { setting: 'CLUSTER_S3_PORT', port: cluster.s3Port, host: '127.0.0.1', listener: 'the object store' },
  ];
  await ensurePortsFree(publicPorts);
  const haproxy = findHaproxy();
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

  const database = await startEmbeddedPostgres({
    dataDir: join(clusterDir, 'postgres'),
    port: config.database.embeddedPort,
    database: 'gateway',
    logger,
  });
  stops.push({ name: 'postgres', stop: database.stop });
  const databaseUrl = new URL(database.url);
  const postgres = {
    host: databaseUrl.hostname,
    port: Number(databaseUrl.port),
    user: decodeURIComponent(databaseUrl.username),
    password: decodeURIComponent(databaseUrl.password),
  };
  await setUpTemporalSchema(clusterBinaries.temporalSqlTool, clusterBinaries.temporalSchemaDir, postgres);

  const bucket = config.storage.s3.bucket || 'gateway';
  const store = await startObjectStore({
    binary: clusterBinaries.weed,
    dataDir: join(clusterDir, 'objects'),
    logDir,
    bucket,
    ports: await storePorts(cluster.s3Port, pickPorts),
  });
  stops.push({ name: 'object store', stop: () => store.process.stop(5_000) });
  supervise(store.process);

  const temporal = await startTemporalServer({
    binary: clusterBinaries.temporalServer,
    dataDir: join(clusterDir, 'temporal'),
    logDir,
    postgres,
    dynamicConfigFile,
    ports: await temporalPorts(cluster.temporalPort, pickPorts),
  });
  stops.push({ name: 'temporal', stop: () => temporal.process.stop(10_000) });
  supervise(temporal.process);
  const { namespace } = config.temporal;
  await ensureNamespace(temporal.address, namespace);
  await checkSearchAttributes(temporal.address, namespace, logger);
  await waitUntilSearchable(
    temporal.address,
    namespace,
    searchAttributeKeys.map(({ name }) => name),
  );

  const publicUrl = publicBaseUrl(server);
  const ui = await startTemporalUi({
    binary: clusterBinaries.temporalUiServer,
    temporalAddress: temporal.address,
    port: config.temporal.devServer.uiPort,
    corsOrigin: publicUrl,
    namespace,
    dataDir: join(clusterDir, 'temporal-ui'),
    logDir,
  });
  stops.push({ name: 'temporal ui', stop: () => ui.process.stop(5_000) });
  supervise(ui.process);

  const shared: SharedPieces = {
    databaseUrl: database.url,
    temporalAddress: temporal.address,
    publicBaseUrl: publicUrl,
    storage: {
      STORAGE_DRIVER: 's3',
      S3_BUCKET: bucket,
      S3_FORCE_PATH_STYLE: 'true',
      AWS_ENDPOINT_URL_S3: store.endpoint,
      AWS_REGION: storeCredentials.region,
      AWS_ACCESS_KEY_ID: storeCredentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: storeCredentials.secretAccessKey,
    },
    chain: localChainEnvironment(config),
  };
  // Each stops within its own shutdown grace (SHUTDOWN_GRACE_SECONDS); a little more, then it is killed.
  const processGraceMs = shutdownBudget(server).graceMs + 5_000;
  const gateway: GatewayProcess[] = [];
  const stopRole = (role: GatewayProcess['role']) => () =>
    Promise.all(gateway.filter((each) => each.role === role).map(({ process }) => process.stop(processGraceMs)));
  stops.push({ name: 'worker processes', stop: stopRole('worker') });
  stops.push({ name: 'api processes', stop: stopRole('api') });
  const apiPorts = await pickPorts(cluster.apiProcesses);
  const common = { shared, dataDir: clusterDir, logDir };
  const numbered = (count: number) => Array.from({ length: count }, (_, index) => index + 1);
  // Together: each applies the migrations under an advisory lock, so whichever comes first does, once.
  await startAll(
    [
      ...numbered(cluster.workerProcesses).map(
        (n) => () => startGatewayProcess({ ...common, name: `worker-${n}`, role: 'worker' }),
      ),
      ...numbered(cluster.apiProcesses).map(
        (n) => () => startGatewayProcess({ ...common, name: `api-${n}`, role: 'api', port: apiPorts[n - 1] }),
      ),
    ],
    gateway,
  );
  const byName = (a: GatewayProcess, b: GatewayProcess) => a.name.localeCompare(b.name, 'en', { numeric: true });
  const workers = gateway.filter(({ role }) => role === 'worker').sort(byName);
  const apis = gateway.filter(({ role }) => role === 'api').sort(byName);
  for (const { process } of [...workers, ...apis]) supervise(process);

  const balancer = await startHaproxy({
    binary: haproxy,
    dataDir: clusterDir,
    logDir,
    host: server.host,
    port: server.port,
    backends: apis.map(({ name, port }) => ({ name, port: port! })),
  });
  stops.push({ name: 'haproxy', stop: () => balancer.stop(shutdownBudget(server).requestsMs) });
  supervise(balancer);

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

  const pid = (proc: { pid: number }) => `pid ${proc.pid}`;
  return [
    `API           ${publicUrl}/api/v1   (HAProxy ${pid(balancer)}, balancing ${apis.length} api processes)`,
    `Docs          ${publicUrl}/docs`,
    `Health        ${publicUrl}/healthz`,
    ...apis.map(({ name, port, process }) => `${name.padEnd(14)}http://127.0.0.1:${port}   (${pid(process)})`),
    ...workers.map(
      ({ name, process }) =>
        `${name.padEnd(14)}task queues ${config.temporal.taskQueue}, ${config.temporal.webhookTaskQueue}   (${pid(process)})`,
    ),
    `Temporal UI   ${ui.url}   (${pid(ui.process)})`,
    `Temporal      ${temporal.address}, server ${temporalServerVersion} on PostgreSQL, ${historyShards} history shards, namespace ${namespace}   (${pid(temporal.process)})`,
    `PostgreSQL    ${postgres.host}:${postgres.port}, databases gateway, temporal, temporal_visibility (data in ${join(clusterDir, 'postgres')}; pid ${database.pid})`,
    ...chain.banner,
    ...x402BannerLines(config),
    `Storage       S3 bucket ${bucket} at ${store.endpoint}, SeaweedFS (data in ${join(clusterDir, 'objects')}; ${pid(store.process)})`,
    `Logs          ${logDir}`,
  ];
}
