// What a fault scenario is given: its gateway in one of three layouts (chaos/stack.ts starts them), and how to kill
// and restart each part. A file of its own so the layouts' starters and the scenarios all import it, not each other.
import type { ClusterPart } from '../cluster/cluster-parts.ts';
import type { PrismaClient } from '../src/db/prisma.ts';
import type { GatewayProcess } from '../harness/stacks/gateway-process.ts';

export type Topology = { kind: 'split'; apis: number; workers: number } | { kind: 'all' } | { kind: 'cluster' };

export interface Stack {
  dir: string;
  logDir: string;
  /** Base URLs (`…/api/v1`) of the API processes, in start order; the client spreads its requests over them. */
  apiUrls: string[];
  apis: GatewayProcess[];
  workers: GatewayProcess[];
  /** The whole `npm start` (topology `all`). */
  all?: GatewayProcess;
  /** A process of the cluster by name: `api-1`, `worker-2`, `temporal`, `objects`, `postgres`… (topology `cluster`). */
  part?: (name: string) => ClusterPart;
  prisma: PrismaClient;
  /** kill -9 of PostgreSQL's process group, then the same data directory and port again (split, cluster). */
  restartPostgres(downMs: number): Promise<void>;
  /** kill -9 of the dev server (the cluster's Temporal server), then the same data and ports again (split, cluster). */
  restartTemporal(downMs: number): Promise<void>;
  /** kill -9 of a worker process, then a new one (split, cluster). */
  restartWorker(index: number): Promise<void>;
  /** kill -9 of the whole `npm start`; once its watchdog has stopped its children, the same DATA_DIR again (all). */
  restartAll(): Promise<void>;
  stop(options: { keepData: boolean }): Promise<void>;
}
