// Every child process we run for long (PostgreSQL, the dev server, the chain, the cluster's processes, `npm start`
// under a test) is started one way: in a process group of its own (a terminal's Ctrl-C reaches only us, and we stop
// them in order), its output read (to a log file, a callback, and a tail for error messages), killed with its group
// if this process exits without stopping it, and by the watchdog if this process dies without a way out.
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { unwatchChild, watchChild } from './watchdog.ts';

export interface SupervisedProcess {
  name: string;
  pid: number;
  /** The log file its output is appended to, if any. */
  logFile?: string;
  child: ChildProcess;
  /** Resolves with the exit code (null when a signal ended it, or it could not start). */
  exited: Promise<number | null>;
  running(): boolean;
  /** The last lines it printed, for an error message. */
  tail(): string;
  /** The stop signal, then SIGKILL to its group after `graceMs`; resolves once it has exited. */
  stop(graceMs: number): Promise<void>;
}

export interface ProcessSpec {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Where its output is appended (made with its directory); none: only `onOutput` and the tail see it. */
  logFile?: string;
  /** How it stops cleanly (SIGTERM by default; PostgreSQL's fast shutdown is SIGINT). */
  stopSignal?: NodeJS.Signals;
  /**
   * What it gets if this process exits without stopping it: SIGKILL (the default) goes to its whole group, any
   * other signal to it alone (anvil's SIGTERM writes its state file).
   */
  exitSignal?: NodeJS.Signals;
  /** Called with each chunk of its output (besides the log file). */
  onOutput?: (text: string, stream: 'stdout' | 'stderr') => void;
  uid?: number;
  gid?: number;
}

/** Sends `signal` to the process group `pid` leads; false when there is none (any more). */
export function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Whether `pid` runs; EPERM is alive too, another user's (PostgreSQL runs as `postgres` when we are root). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** SIGKILL to the group `pid` leads; waits until the leader has exited (and was reaped), at most `timeoutMs`. */
export async function killGroup(pid: number, timeoutMs = 10_000): Promise<void> {
  signalGroup(pid, 'SIGKILL');
  const deadline = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} still alive ${timeoutMs} ms after SIGKILL`);
    await sleep(50);
  }
}

// One hook for all of them (not one per process): an exit that skipped the ordered stop (the grace time's) takes
// every process along.
const onExit = new Map<number, () => void>();
let exitHooked = false;
function stopOnExit(pid: number, stop: () => void): void {
  onExit.set(pid, stop);
  if (exitHooked) return;
  exitHooked = true;
  process.once('exit', () => {
    for (const each of onExit.values()) each();
  });
}

async function openLog(spec: ProcessSpec): Promise<WriteStream | undefined> {
  if (spec.cwd) await mkdir(spec.cwd, { recursive: true });
  if (!spec.logFile) return undefined;
  await mkdir(dirname(spec.logFile), { recursive: true });
  return createWriteStream(spec.logFile, { flags: 'a' });
}

/** Starts `spec.command`; resolves once it was spawned (see `waitUntil` and `untilOutput` for its readiness). */
export async function startSupervised(spec: ProcessSpec): Promise<SupervisedProcess> {
  const log = await openLog(spec);
  const child: ChildProcess = spawn(spec.command, spec.args, {
    cwd: spec.cwd,
    env: spec.env ?? process.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    uid: spec.uid,
    gid: spec.gid,
  });
  let recent = '';
  const take = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
    const text = chunk.toString();
    log?.write(chunk);
    recent = (recent + text).slice(-4_000);
    spec.onOutput?.(text, stream);
  };
  child.stdout!.on('data', take('stdout'));
  child.stderr!.on('data', take('stderr'));
  const signal = spec.stopSignal ?? 'SIGTERM';
  const exitSignal = spec.exitSignal ?? 'SIGKILL';
  const exited = new Promise<number | null>((done) => {
    child.once('error', (error) => {
      log?.write(`\n[${spec.name}] could not start ${spec.command}: ${error.message}\n`);
      recent += `could not start ${spec.command}: ${error.message}`;
      done(null);
    });
    child.once('exit', (code) => done(code));
  });
  void exited.then(() => {
    if (child.pid !== undefined && onExit.delete(child.pid)) unwatchChild(child.pid);
    log?.end();
  });
  if (child.pid !== undefined) {
    const pid = child.pid;
    stopOnExit(pid, () => (exitSignal === 'SIGKILL' ? signalGroup(pid, 'SIGKILL') : child.kill(exitSignal)));
    watchChild(pid, signal);
  }
  const isRunning = () => child.exitCode === null && child.signalCode === null && child.pid !== undefined;
  return {
    name: spec.name,
    pid: child.pid ?? -1,
    logFile: spec.logFile,
    child,
    exited,
    running: isRunning,
    tail: () => recent.trim().split('\n').slice(-8).join('\n') || '(no output)',
    async stop(graceMs: number) {
      if (!isRunning()) return void (await exited);
      const force = setTimeout(() => signalGroup(child.pid!, 'SIGKILL'), graceMs);
      child.kill(signal);
      await exited;
      clearTimeout(force);
    },
  };
}

const logNote = (proc: SupervisedProcess) => (proc.logFile ? ` (log ${proc.logFile})` : '');

/** Polls `check` until it resolves true; fails with `what` and the process's last output when it exits or times out. */
export async function waitUntil<T>(
  proc: SupervisedProcess,
  what: string,
  check: () => Promise<T | false | undefined>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!proc.running()) throw new Error(`${proc.name} exited before ${what}${logNote(proc)}:\n${proc.tail()}`);
    const outcome = await check().catch(() => false as const);
    if (outcome !== false && outcome !== undefined) return outcome;
    await sleep(250);
  }
  throw new Error(`${proc.name}: not ${what} within ${timeoutMs / 1000} s${logNote(proc)}:\n${proc.tail()}`);
}

/**
 * Resolves with the first match of `pattern` in what the process prints (on `stream`, or either), as soon as it
 * prints it; fails when it exits first or after `timeoutMs`. Start listening before it could print it: right after
 * startSupervised.
 */
export function untilOutput(
  proc: SupervisedProcess,
  pattern: RegExp | string,
  options: { timeoutMs: number; what: string; stream?: 'stdout' | 'stderr' },
): Promise<RegExpExecArray | string> {
  const { timeoutMs, what, stream } = options;
  const streams = stream ? [proc.child[stream]!] : [proc.child.stdout!, proc.child.stderr!];
  return new Promise((resolve, reject) => {
    let seen = '';
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      for (const each of streams) each.off('data', onData);
      outcome();
    };
    const onData = (chunk: Buffer) => {
      seen = (seen + chunk.toString()).slice(-8_000);
      const match = typeof pattern === 'string' ? (seen.includes(pattern) ? pattern : null) : pattern.exec(seen);
      if (match) finish(() => resolve(match));
    };
    const timer = setTimeout(
      () => finish(() => reject(new Error(`${proc.name} did not ${what} within ${timeoutMs} ms: ${proc.tail()}`))),
      timeoutMs,
    );
    for (const each of streams) each.on('data', onData);
    void proc.exited.then((code) =>
      finish(() =>
        reject(new Error(`${proc.name} exited during start-up (code ${code})${logNote(proc)}: ${proc.tail()}`)),
      ),
    );
  });
}

/** Runs `ready`; if it fails, stops the process (within `graceMs`) and rethrows: a start that failed leaves nothing. */
export async function readyOrStopped<T>(proc: SupervisedProcess, ready: Promise<T>, graceMs: number): Promise<T> {
  try {
    return await ready;
  } catch (error) {
    await proc.stop(graceMs);
    throw error;
  }
}
