// A worker as operators run one (`npm start -- --role worker`), in its own process (started by the harness:
// harness/stacks/gateway-process.ts), against a test stack's database and dev server: for the tests that kill it,
// or read what only a process of its own shows.
import { type GatewayProcess, launchGatewayProcess } from '../../harness/stacks/gateway-process.ts';

export interface WorkerProcessOptions {
  databaseUrl: string;
  temporalAddress: string;
  taskQueue: string;
  dataDir: string;
  /** More configuration (webhook queue, metrics ports, …). */
  env?: Record<string, string>;
}

/** Started, not waited for: `up` resolves once its banner is out. */
export function launchWorkerProcess(options: WorkerProcessOptions): Promise<GatewayProcess> {
  return launchGatewayProcess({
    name: 'worker',
    role: 'worker',
    startTimeoutMs: 90_000,
    env: {
      DATABASE_URL: options.databaseUrl,
      TEMPORAL_ADDRESS: options.temporalAddress,
      TEMPORAL_TASK_QUEUE: options.taskQueue,
      DATA_DIR: options.dataDir,
      LOG_LEVEL: 'warn',
      NODE_ENV: 'test',
      ...options.env,
    },
  });
}
