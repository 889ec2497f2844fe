// One process of the cluster: its own process group (a terminal's Ctrl-C reaches only the cluster script, which
// stops them in order), its output appended to a log file of its own, and the watchdog if the script dies first.
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { unwatchChild, watchChild } from '../watchdog.ts';

export interface SupervisedProcess {
  name: string;
  pid: number;
  logFile: string;
  /** Resolves with the exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  running(): boolean;
  /** The last lines it printed, for an error message. */
  tail(): string;
  /** `signal`, then SIGKILL to its group after `graceMs`; resolves once it has exited. */
  stop(graceMs: number): Promise<void>;
}

export interface ProcessSpec {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  logFile: string;
  /** How it stops cleanly (SIGTERM by default; PostgreSQL's fast shutdown is SIGINT). */
  stopSignal?: NodeJS.Signals;
  /** Called with each chunk of its output (besides the log file). */
  onOutput?: (text: string) => void;
  uid?: number;
  gid?: number;
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Gone already.
  }
}

// One hook for all of them (not one per process): an exit of the cluster script that skipped the ordered stop (the
// grace time's) takes every process along.
const running = new Set<number>();
let exitHooked = false;
function killOnExit(pid: number): void {
  running.add(pid);
  if (exitHooked) return;
  exitHooked = true;
  process.once('exit', () => {
    for (const each of running) killGroup(each, 'SIGKILL');
  });
}

export async function startSupervised(spec: ProcessSpec): Promise<SupervisedProcess> {
  await mkdir(dirname(spec.logFile), { recursive: true });
  if (spec.cwd) await mkdir(spec.cwd, { recursive: true });
  const log = createWriteStream(spec.logFile, { flags: 'a' });
  const child: ChildProcess = spawn(spec.command, spec.args, {
    cwd: spec.cwd,
    env: spec.env ?? process.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    uid: spec.uid,
    gid: spec.gid,
  });
  let recent = '';
  const take = (chunk: Buffer) => {
    const text = chunk.toString();
    log.write(chunk);
    recent = (recent + text).slice(-4_000);
    spec.onOutput?.(text);
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  const signal = spec.stopSignal ?? 'SIGTERM';
  const exited = new Promise<number | null>((done) => {
    child.once('error', (error) => {
      log.write(`\n[cluster] could not start ${spec.command}: ${error.message}\n`);
      recent += `could not start ${spec.command}: ${error.message}`;
      done(null);
    });
    child.once('exit', (code) => done(code));
  });
  void exited.then(() => {
    if (child.pid !== undefined && running.delete(child.pid)) unwatchChild(child.pid);
    log.end();
  });
  if (child.pid !== undefined) {
    killOnExit(child.pid);
    watchChild(child.pid, signal);
  }
  const isRunning = () => child.exitCode === null && child.signalCode === null && child.pid !== undefined;
  return {
    name: spec.name,
    pid: child.pid ?? -1,
    logFile: spec.logFile,
    exited,
    running: isRunning,
    tail: () => recent.trim().split('\n').slice(-8).join('\n') || '(no output)',
    async stop(graceMs: number) {
      if (!isRunning()) return void (await exited);
      const force = setTimeout(() => killGroup(child.pid!, 'SIGKILL'), graceMs);
      child.kill(signal);
      await exited;
      clearTimeout(force);
    },
  };
}

/** Polls `check` until it resolves true; fails with `what` and the process's last output when it exits or times out. */
export async function waitUntil(
  proc: SupervisedProcess,
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!proc.running()) throw new Error(`${proc.name} exited before ${what} (log ${proc.logFile}):\n${proc.tail()}`);
    if (await check().catch(() => false)) return;
    await new Promise((done) => setTimeout(done, 250));
  }
  throw new Error(`${proc.name}: not ${what} within ${timeoutMs / 1000} s (log ${proc.logFile}):\n${proc.tail()}`);
}
