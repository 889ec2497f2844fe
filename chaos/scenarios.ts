// The faults, one row each: the processes a scenario runs, and what it does to them once half of its tasks are
// admitted (the rest are posted during the fault, so the client's retries meet it).
import { killAndRestart } from './cluster-stack.ts';
import type { Stack, Topology } from './stack-type.ts';

export interface Scenario {
  id: string;
  title: string;
  topology: Topology;
  /** Injects the fault and starts what an operator (or supervisor) would, returning once that is done. */
  fault(stack: Stack): Promise<void>;
  /** The webhook receiver is down (closed, then 503) for this long from the start: the fault of scenario f. */
  receiverDownMs?: number;
  /** How long the webhooks may take to arrive once every task has ended. */
  webhookWaitMs?: number;
}

const split = (apis = 1, workers = 1): Topology => ({ kind: 'split', apis, workers });

export const scenarios: Scenario[] = [
  {
    id: 'a',
    title: 'SIGKILL the worker process (a new one starts)',
    topology: split(),
    fault: (stack) => stack.restartWorker(0),
  },
  {
    id: 'b',
    title: 'SIGKILL the Temporal dev server, restart it after 3 s',
    topology: split(),
    fault: (stack) => stack.restartTemporal(3_000),
  },
  {
    id: 'c',
    title: 'SIGKILL the whole `npm start`, start it again',
    topology: { kind: 'all' },
    fault: (stack) => stack.restartAll(),
  },
  {
    id: 'd',
    title: 'SIGKILL PostgreSQL, restart it after 3 s',
    topology: split(),
    fault: (stack) => stack.restartPostgres(3_000),
  },
  {
    id: 'e',
    title: 'two api and two worker processes, SIGKILL one of each',
    topology: split(2, 2),
    fault: async (stack) => {
      await Promise.all([stack.apis[0]!.kill(), stack.workers[0]!.kill()]);
    },
  },
  {
    id: 'f',
    title: 'webhook receiver down for the first minute (closed, then 503)',
    topology: split(),
    fault: async () => undefined,
    receiverDownMs: 60_000,
    // Deliveries retry at once, after 5 s, then after 5 minutes (±10 %): the third attempt finds it up.
    webhookWaitMs: 8 * 60_000,
  },
];

const cluster: Topology = { kind: 'cluster' };
const part = (stack: Stack, name: string) => stack.part!(name);

/** The same faults on `npm run cluster`'s layout (`--cluster`): each part is a process of its own there. */
export const clusterScenarios: Scenario[] = [
  {
    id: 'ca',
    title: 'cluster: SIGKILL api-1 and worker-1 (Caddy routes around, worker-2 takes the tasks)',
    topology: cluster,
    fault: async (stack) => {
      await Promise.all([part(stack, 'api-1').kill(), part(stack, 'worker-1').kill()]);
    },
  },
  {
    id: 'cb',
    title: "cluster: SIGKILL Temporal's server, restart it after 3 s",
    topology: cluster,
    fault: (stack) => stack.restartTemporal(3_000),
  },
  {
    id: 'cc',
    title: 'cluster: SIGKILL the object store (SeaweedFS), start it again after 30 s',
    topology: cluster,
    fault: (stack) => killAndRestart(part(stack, 'objects'), 30_000),
  },
  {
    id: 'cd',
    title: 'cluster: SIGKILL PostgreSQL (gateway and Temporal), restart it after 3 s',
    topology: cluster,
    fault: (stack) => stack.restartPostgres(3_000),
  },
];

export const scenario = (id: string): Scenario => {
  const all = [...scenarios, ...clusterScenarios];
  const found = all.find((candidate) => candidate.id === id);
  if (!found) throw new Error(`no scenario ${id}; there are ${all.map((s) => s.id).join(', ')}`);
  return found;
};
