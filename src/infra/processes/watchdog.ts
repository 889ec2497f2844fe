// Children in their own process group (so a Ctrl-C reaches only us, and we stop them in order) would outlive this
// process if it died without stopping them: one watchdog process per service stops them when it dies, however.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const script = join(import.meta.dirname, 'watchdog-process.mjs');

let watchdog: ChildProcess | undefined;

function started(): ChildProcess {
  if (watchdog) return watchdog;
  const child = spawn(process.execPath, [script], { detached: true, stdio: ['pipe', 'ignore', 'inherit'] });
  // Neither the process nor its pipe may keep this process alive; the pipe closes when this process ends.
  child.unref();
  (child.stdin as unknown as { unref(): void }).unref();
  child.stdin!.on('error', () => undefined);
  child.once('exit', () => {
    if (watchdog === child) watchdog = undefined;
  });
  watchdog = child;
  return child;
}

/** Stops `pid` with `signal` (then its group with SIGKILL) if this process dies before calling unwatch. */
export function watchChild(pid: number, signal: NodeJS.Signals): void {
  started().stdin!.write(`watch ${pid} ${signal}\n`);
}

export function unwatchChild(pid: number): void {
  watchdog?.stdin!.write(`unwatch ${pid}\n`);
}
