// The gateway's own processes in the cluster: each is `npm start -- --role api|worker` (scripts/start.mjs), pointed at
// the cluster's PostgreSQL, Temporal and store, with a DATA_DIR of its own so none of them writes the cluster's
// runtime.json. Up once it prints its banner (and, for an api process, answers /healthz itself).
import { join } from 'node:path';
import { startSupervised, type SupervisedProcess, waitUntil } from '../src/infra/processes/supervised-process.ts';
import { projectRoot } from '../src/infra/project-root.ts';

const bannerEnd = 'Press Ctrl-C to stop.';

export interface GatewayProcess {
  name: string;
  role: 'api' | 'worker';
  /** The api process's own port (behind the balancer). */
  port?: number;
  metricsPort: number;
  temporalMetricsPort?: number;
  process: SupervisedProcess;
}

export interface SharedPieces {
  databaseUrl: string;
  temporalAddress: string;
  /** The balancer's address: output links and the docs name it, whichever process made them. */
  publicBaseUrl: string;
  /** The AWS SDK's and the gateway's storage variables. */
  storage: Record<string, string>;
  /** The local development chain's variables, when the cluster runs one. */
  chain: Record<string, string>;
  /** What each process starts from (the operator's environment, with provider keys and limits). */
  environment: NodeJS.ProcessEnv;
}

/** What every process of the cluster gets on top of the operator's environment (which still carries FAL_KEY, …). */
export function gatewayEnvironment(shared: SharedPieces, dataDir: string): NodeJS.ProcessEnv {
  return {
    ...shared.environment,
    MALLOC_ARENA_MAX: shared.environment.MALLOC_ARENA_MAX ?? '2',
    DATA_DIR: dataDir,
    DATABASE_URL: shared.databaseUrl,
    TEMPORAL_ADDRESS: shared.temporalAddress,
    PUBLIC_BASE_URL: shared.publicBaseUrl,
    ...shared.storage,
    ...shared.chain,
  };
}

export async function startGatewayProcess(options: {
  name: string;
  role: 'api' | 'worker';
  port?: number;
  /** Its own metrics listener (one port cannot serve several processes), and a worker's Temporal SDK metrics. */
  metricsPort: number;
  temporalMetricsPort?: number;
  shared: SharedPieces;
  dataDir: string;
  logDir: string;
}): Promise<GatewayProcess> {
  let printed = '';
  const env = {
    ...gatewayEnvironment(options.shared, join(options.dataDir, options.name)),
    METRICS_PORT: String(options.metricsPort),
    TEMPORAL_METRICS_PORT: options.temporalMetricsPort ? String(options.temporalMetricsPort) : '',
  };
  if (options.role === 'api')
    Object.assign(env, { HOST: '127.0.0.1', PORT: String(options.port), TRUST_PROXY: 'loopback' });
  const child = await startSupervised({
    name: options.name,
    command: process.execPath,
    args: [join(projectRoot, 'scripts', 'start.mjs'), '--role', options.role],
    cwd: projectRoot,
    env,
    logFile: join(options.logDir, `${options.name}.log`),
    onOutput: (text) => {
      if (!printed.includes(bannerEnd)) printed = (printed + text).slice(-2_000);
    },
  });
  const healthy = async () => options.role === 'worker' || (await fetch(`http://127.0.0.1:${options.port}/healthz`)).ok;
  try {
    await waitUntil(child, 'up', async () => printed.includes(bannerEnd) && (await healthy()), 180_000);
  } catch (error) {
    await child.stop(10_000);
    throw error;
  }
  const { name, role, port, metricsPort, temporalMetricsPort } = options;
  return { name, role, port, metricsPort, temporalMetricsPort, process: child };
}
