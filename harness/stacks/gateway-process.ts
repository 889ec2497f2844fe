// The gateway as operators run it, as a child of a test, the bench or the fault suite: `npm start [-- --role api|worker]`
// or `npm run cluster`, started one way (startSupervised): in a process group of its own as a terminal's job is (so a
// kill -9 or a Ctrl-C reaches all of it), stopped if this process exits first, its output kept (and logged to a file).
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import {
  signalGroup,
  startSupervised,
  type SupervisedProcess,
  untilOutput,
} from '../../src/infra/processes/supervised-process.ts';
import { serviceNodeOptions } from '../../scripts/service-node-options.mjs';

const root = join(import.meta.dirname, '..', '..');
/** What both scripts print once everything is up. */
export const banner = 'Press Ctrl-C to stop.';

export interface GatewayProcessOptions {
  name: string;
  /** `start` (scripts/start.mjs, the default) or `cluster` (scripts/cluster.mjs). */
  script?: 'start' | 'cluster';
  /** `npm start`'s role (default all). */
  role?: 'all' | 'api' | 'worker';
  /** On top of this process's environment. */
  env: Record<string, string>;
  /** Where its output is appended besides memory. */
  logFile?: string;
  /** How long it may take to print its banner (default 120 s). */
  startTimeoutMs?: number;
}

export interface GatewayProcess {
  name: string;
  pid: number;
  child: ChildProcess;
  /** Resolves with its exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Resolves once its banner is out; rejects if it exits first or takes longer than startTimeoutMs. */
  up: Promise<void>;
  /** kill -9 of its whole process group; resolves once it has exited. */
  kill(): Promise<void>;
  /** SIGTERM (its ordered shutdown), then SIGKILL to its group after `graceMs`; its exit code. */
  stop(graceMs?: number): Promise<number | null>;
}

function argsOf(options: GatewayProcessOptions): string[] {
  if (options.script === 'cluster') return ['scripts/cluster.mjs'];
  return ['scripts/start.mjs', ...(options.role && options.role !== 'all' ? ['--role', options.role] : [])];
}

/** Starts it and returns at once (see `up`, or startGatewayProcess, for its readiness). */
export async function launchGatewayProcess(options: GatewayProcessOptions): Promise<GatewayProcess> {
  const args = argsOf(options);
  if (options.logFile) {
    await mkdir(dirname(options.logFile), { recursive: true });
    await appendFile(options.logFile, `--- ${new Date().toISOString()} start ${args.join(' ')}\n`);
  }
  let output = '';
  // As `npm start` and `npm run cluster` run it: with the service's default heap cap unless NODE_OPTIONS has one.
  const env = { ...process.env, ...options.env };
  // SIGTERM if this process exits first: its ordered shutdown, which stops what it started.
  const proc: SupervisedProcess = await startSupervised({
    name: options.name,
    command: process.execPath,
    args,
    cwd: root,
    env: { ...env, NODE_OPTIONS: serviceNodeOptions(env.NODE_OPTIONS) },
    logFile: options.logFile,
    exitSignal: 'SIGTERM',
    onOutput: (text) => (output += text),
  });
  const up = untilOutput(proc, banner, {
    timeoutMs: options.startTimeoutMs ?? 120_000,
    what: 'print its banner',
    stream: 'stdout',
  }).then(() => undefined);
  up.catch(() => undefined);
  return {
    name: options.name,
    pid: proc.pid,
    child: proc.child,
    exited: proc.exited,
    output: () => output,
    up,
    async kill() {
      if (proc.running()) signalGroup(proc.pid, 'SIGKILL');
      await proc.exited;
    },
    async stop(graceMs = 60_000) {
      await proc.stop(graceMs);
      return proc.exited;
    },
  };
}

/** Starts it and resolves once its banner is out; a start that fails leaves nothing running. */
export async function startGatewayProcess(options: GatewayProcessOptions): Promise<GatewayProcess> {
  const started = await launchGatewayProcess(options);
  try {
    await started.up;
  } catch (error) {
    await started.stop(20_000);
    throw error;
  }
  return started;
}
