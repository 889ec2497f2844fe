// The gateway's processes as operators run them (`npm start`, `npm start -- --role api|worker`), each in a process
// group of its own, as a terminal's job is, so a kill -9 reaches all of it. Output goes to a log file per process,
// kept for the post-mortem of a failed run.
import { execFileSync } from 'node:child_process';
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { portIsFree } from '../src/infra/ports.ts';
import { signalGroup, sleep, startSupervised, untilOutput } from '../src/infra/processes/supervised-process.ts';

const root = join(import.meta.dirname, '..');
const startTimeoutMs = 240_000;
const stopGraceMs = 20_000;

export { sleep };

export interface GatewayProcess {
  name: string;
  pid: number;
  exited: Promise<void>;
  /** kill -9 of its whole process group; resolves once it has exited. */
  kill(): Promise<void>;
  /** SIGTERM (its ordered shutdown), then SIGKILL if it overstays. */
  stop(): Promise<void>;
}

/** Starts `node scripts/start.mjs [--role <role>]` and resolves once its banner says it is up. */
export async function startGateway(options: {
  name: string;
  role: 'all' | 'api' | 'worker';
  env: Record<string, string>;
  logDir: string;
}): Promise<GatewayProcess> {
  const args = ['scripts/start.mjs', ...(options.role === 'all' ? [] : ['--role', options.role])];
  const logFile = join(options.logDir, `${options.name}.log`);
  await appendFile(logFile, `--- ${new Date().toISOString()} start ${args.join(' ')}\n`);
  // Killed with its group if this process exits first (SIGTERM: its ordered shutdown, as stopWithParent did).
  const gateway = await startSupervised({
    name: options.name,
    command: process.execPath,
    args,
    cwd: root,
    env: { ...process.env, ...options.env },
    logFile,
    exitSignal: 'SIGTERM',
  });
  const exited = gateway.exited.then(() => undefined);
  const up = untilOutput(gateway, 'Press Ctrl-C to stop.', {
    timeoutMs: startTimeoutMs,
    what: 'print its banner',
    stream: 'stdout',
  });
  const started: GatewayProcess = {
    name: options.name,
    pid: gateway.pid,
    exited,
    async kill() {
      if (gateway.running()) signalGroup(gateway.pid, 'SIGKILL');
      await exited;
    },
    stop: () => gateway.stop(stopGraceMs),
  };
  try {
    await up;
  } catch (error) {
    await started.kill();
    throw error;
  }
  return started;
}

/** Processes whose command line names `dir`: PostgreSQL (-D), the dev server (--db-filename), the chain. */
export function processesUsing(dir: string): string[] {
  const lines = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).split('\n');
  return lines.filter((line) => line.includes(dir) && !line.includes('ps -eo'));
}

/** Waits until every port is free and no process names `dir` (what a killed service left is gone). */
export async function waitUntilReleased(ports: number[], dir: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const free = await Promise.all(ports.map((port) => portIsFree(port)));
    const left = processesUsing(dir);
    if (free.every(Boolean) && left.length === 0) return;
    if (Date.now() > deadline)
      throw new Error(`not released within ${timeoutMs} ms: ports ${ports} free=${free}, processes ${left}`);
    await sleep(200);
  }
}
