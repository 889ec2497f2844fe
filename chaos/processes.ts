// The gateway's processes as operators run them (`npm start`, `npm start -- --role api|worker`), each in a process
// group of its own, as a terminal's job is, so a kill -9 reaches all of it. Output goes to a log file per process,
// kept for the post-mortem of a failed run.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { portIsFree } from '../src/infra/ports.ts';

const root = join(import.meta.dirname, '..');
const startTimeoutMs = 240_000;
const stopGraceMs = 20_000;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface GatewayProcess {
  name: string;
  pid: number;
  exited: Promise<void>;
  /** kill -9 of its whole process group; resolves once it has exited. */
  kill(): Promise<void>;
  /** SIGTERM (its ordered shutdown), then SIGKILL if it overstays. */
  stop(): Promise<void>;
}

const signalGroup = (pid: number, signal: NodeJS.Signals) => {
  try {
    process.kill(-pid, signal);
  } catch {
    // Gone already.
  }
};

/** Starts `node scripts/start.mjs [--role <role>]` and resolves once its banner says it is up. */
export async function startGateway(options: {
  name: string;
  role: 'all' | 'api' | 'worker';
  env: Record<string, string>;
  logDir: string;
}): Promise<GatewayProcess> {
  const args = ['scripts/start.mjs', ...(options.role === 'all' ? [] : ['--role', options.role])];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const log = createWriteStream(join(options.logDir, `${options.name}.log`), { flags: 'a' });
  log.write(`--- ${new Date().toISOString()} start ${args.join(' ')} (pid ${child.pid})\n`);
  let banner = '';
  const up = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${options.name} not up within ${startTimeoutMs / 1000} s`)),
      startTimeoutMs,
    );
    child.stdout!.on('data', (chunk: Buffer) => {
      banner = (banner + chunk.toString()).slice(-4_000);
      if (banner.includes('Press Ctrl-C to stop.')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${options.name} exited during start-up (${code ?? signal}); see ${log.path}`));
    });
  });
  for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (chunk: Buffer) => log.write(chunk));
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      log.end(`--- ${new Date().toISOString()} exited (${code ?? signal})\n`);
      resolve();
    }),
  );
  const running = () => child.exitCode === null && child.signalCode === null;
  const gateway: GatewayProcess = {
    name: options.name,
    pid: child.pid!,
    exited,
    async kill() {
      if (running()) signalGroup(child.pid!, 'SIGKILL');
      await exited;
    },
    async stop() {
      if (!running()) return;
      child.kill('SIGTERM');
      const force = setTimeout(() => signalGroup(child.pid!, 'SIGKILL'), stopGraceMs);
      await exited;
      clearTimeout(force);
    },
  };
  try {
    await up;
  } catch (error) {
    await gateway.kill();
    throw error;
  }
  return gateway;
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
