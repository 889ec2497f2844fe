// The child processes a local engine runs (FFmpeg, ffprobe) live in a process group of their own, as PostgreSQL and
// the dev server do: a terminal's Ctrl-C goes to the whole foreground group, and must reach only us, so the worker
// drains (lets the render finish, or cancels it) before they stop. What stops them instead: an abort (the task
// cancelled, its time up, the worker's grace over), our own timeout, this process exiting, or the watchdog if this
// process dies without a way out. Each is killed as a group (SIGKILL): nothing of a render is worth keeping.
import { spawn } from 'node:child_process';
import { unwatchChild, watchChild } from './processes/watchdog.ts';

export interface EngineExit {
  /** The exit code, when the process exited by itself. */
  code: number | null;
  /** The signal that ended it, when one did (ours on a timeout, or anyone's). */
  signal: NodeJS.Signals | null;
  /** Ended by our timeout. */
  timedOut: boolean;
}

export interface EngineProcessOptions {
  timeoutMs: number;
  /** Aborting kills the process; the call then rejects with an `AbortError` whose cause is the signal's reason. */
  signal?: AbortSignal;
  onStdout?: (chunk: Buffer) => void;
  onStderr?: (chunk: Buffer) => void;
}

const running = new Set<number>();

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}

// One hook for all of them (not one per process): an orderly exit, or the grace time's, takes them along.
let exitHooked = false;
function killAllOnExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  process.once('exit', () => {
    for (const pid of running) killGroup(pid);
  });
}

function abortError(signal: AbortSignal): Error {
  return Object.assign(new Error('The operation was aborted', { cause: signal.reason }), {
    name: 'AbortError',
    code: 'ABORT_ERR',
  });
}

/**
 * Runs `path` with `args` in a process group of its own and tells how it ended. Rejects only when it could not start
 * or was aborted; an exit (by code or by signal) resolves, for the caller to read.
 */
export function runEngineProcess(path: string, args: string[], options: EngineProcessOptions): Promise<EngineExit> {
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(abortError(signal));
  return new Promise((resolve, reject) => {
    const child = spawn(path, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    // Both pipes are read (a full pipe would stall the process), whether or not the caller wants them.
    child.stdout.on('data', (chunk: Buffer) => options.onStdout?.(chunk));
    child.stderr.on('data', (chunk: Buffer) => options.onStderr?.(chunk));
    const pid = child.pid;
    let timedOut = false;
    const stop = () => {
      if (pid !== undefined) killGroup(pid);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    signal?.addEventListener('abort', stop, { once: true });
    if (pid !== undefined) {
      running.add(pid);
      killAllOnExit();
      watchChild(pid, 'SIGKILL');
    }
    const settle = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
      if (pid !== undefined && running.delete(pid)) unwatchChild(pid);
    };
    child.once('error', (error) => {
      settle();
      // A process that started and then failed is killed with its group; one that never started has none.
      stop();
      reject(error);
    });
    child.once('close', (code, exitSignal) => {
      settle();
      if (signal?.aborted) reject(abortError(signal));
      else resolve({ code, signal: exitSignal, timedOut });
    });
  });
}
