// One scenario's gateway, in a scratch DATA_DIR of its own. `split`: PostgreSQL and the Temporal dev server run
// here (harness/stacks/split-infrastructure.ts) so a scenario can kill and restart each alone, and the api and worker
// roles run as `npm start -- --role …` processes against them. `all`: one whole `npm start`, embedding everything.
// `cluster`: `npm run cluster`'s layout (chaos/cluster-stack.ts).
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { embeddedDatabaseUrl } from '../src/config/config.ts';
import { createPrisma } from '../src/db/prisma.ts';
import { freePort } from '../harness/ports.ts';
import { scratchDir } from '../harness/scratch-env.ts';
import { startClusterStack } from './cluster-stack.ts';
import { waitUntilReleased } from '../harness/processes.ts';
import { startSplitInfrastructure } from '../harness/stacks/split-infrastructure.ts';
import { startGatewayProcess } from '../harness/stacks/gateway-process.ts';
import type { Stack, Topology } from './stack-type.ts';

/** One gateway process (`npm start [-- --role …]`), its output in `logDir`, kept for the post-mortem of a failed run. */
const startGateway = (options: {
  name: string;
  role: 'all' | 'api' | 'worker';
  env: Record<string, string>;
  logDir: string;
}) =>
  startGatewayProcess({
    ...options,
    logFile: join(options.logDir, `${options.name}.log`),
    startTimeoutMs: 240_000,
  });
const stopGraceMs = 20_000;

/** What every gateway process gets: a local model's inputs and webhooks on this machine, no chain RPC. */
export const commonEnv = (dir: string): Record<string, string> => ({
  DATA_DIR: dir,
  LOG_LEVEL: 'warn',
  ALLOW_PRIVATE_INPUT_URLS: 'true',
  ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
  LOCAL_CONCURRENCY: '8',
  SHUTDOWN_GRACE_SECONDS: '10',
  DATABASE_URL: '',
  TEMPORAL_ADDRESS: '',
  BASE_RPC_URL: '',
  POLYGON_RPC_URL: '',
  ETHEREUM_RPC_URL: '',
});

export async function startStack(name: string, topology: Topology): Promise<Stack> {
  const dir = await scratchDir(`gateway-chaos-${name}-`);
  const logDir = join(dir, 'logs');
  await mkdir(logDir, { recursive: true });
  if (topology.kind === 'cluster') return startClusterStack(dir, commonEnv(dir));
  return topology.kind === 'all' ? startAll(dir, logDir) : startSplit(dir, logDir, topology);
}

async function startSplit(dir: string, logDir: string, topology: { apis: number; workers: number }): Promise<Stack> {
  const infrastructure = await startSplitInfrastructure(dir);
  const env = {
    ...commonEnv(dir),
    DATABASE_URL: infrastructure.databaseUrl,
    TEMPORAL_ADDRESS: infrastructure.temporalAddress,
  };
  const apiPorts = await Promise.all(Array.from({ length: topology.apis }, () => freePort()));
  const worker = (index: number) =>
    startGateway({ name: `worker-${index}`, role: 'worker', env: { ...env, PORT: String(apiPorts[0]) }, logDir });
  const [apis, workers] = await Promise.all([
    Promise.all(
      apiPorts.map((port, index) =>
        startGateway({ name: `api-${index}`, role: 'api', env: { ...env, PORT: String(port) }, logDir }),
      ),
    ),
    Promise.all(Array.from({ length: topology.workers }, (_, index) => worker(index))),
  ]);
  const prisma = createPrisma(infrastructure.databaseUrl);
  return {
    dir,
    logDir,
    apiUrls: apiPorts.map((port) => `http://127.0.0.1:${port}/api/v1`),
    apis,
    workers,
    prisma,
    restartPostgres: (downMs) => infrastructure.restartPostgres(downMs),
    restartTemporal: (downMs) => infrastructure.restartTemporal(downMs),
    async restartWorker(index) {
      await workers[index]!.kill();
      workers[index] = await worker(index);
    },
    restartAll: () => Promise.reject(new Error('the split stack has no whole `npm start`')),
    async stop({ keepData }) {
      await Promise.all([...apis, ...workers].map((process) => process.stop(stopGraceMs)));
      await prisma.$disconnect().catch(() => undefined);
      await infrastructure.stop();
      if (!keepData) await rm(dir, { recursive: true, force: true });
    },
  };
}

async function startAll(dir: string, logDir: string): Promise<Stack> {
  const ports = {
    PORT: await freePort(),
    EMBEDDED_POSTGRES_PORT: await freePort(),
    TEMPORAL_DEV_SERVER_PORT: await freePort(),
    TEMPORAL_UI_PORT: await freePort(),
  };
  const env = { ...commonEnv(dir), ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])) };
  const start = () => startGateway({ name: 'npm-start', role: 'all', env, logDir });
  const stack: Stack = {
    dir,
    logDir,
    apiUrls: [`http://127.0.0.1:${ports.PORT}/api/v1`],
    apis: [],
    workers: [],
    all: await start(),
    prisma: createPrisma(embeddedDatabaseUrl({ embeddedPort: ports.EMBEDDED_POSTGRES_PORT })),
    restartPostgres: () => Promise.reject(new Error('npm start owns its PostgreSQL')),
    restartTemporal: () => Promise.reject(new Error('npm start owns its dev server')),
    restartWorker: () => Promise.reject(new Error('npm start runs its worker in-process')),
    async restartAll() {
      await stack.all!.kill();
      // Its watchdog stops PostgreSQL, the dev server and the chain; the next start needs their ports.
      await waitUntilReleased(Object.values(ports), dir);
      stack.all = await start();
    },
    async stop({ keepData }) {
      await stack.all?.stop(stopGraceMs);
      await stack.prisma.$disconnect().catch(() => undefined);
      if (!keepData) await rm(dir, { recursive: true, force: true });
    },
  };
  return stack;
}
