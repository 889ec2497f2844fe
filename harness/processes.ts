// Processes as the tests see them from outside: alive or not, and which ones use a directory.
import { type ChildProcess, execFileSync } from 'node:child_process';

/** Processes whose command line names a data directory: PostgreSQL (-D) and the dev server (--db-filename). */
export function processesUsing(dir: string): string[] {
  const lines = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).split('\n');
  return lines.filter((line) => line.includes(dir) && !line.includes('ps -eo'));
}

export const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Resolves once the banner (`npm start`'s or the cluster's) is out; rejects on exit or past `timeoutMs`. */
export function untilBanner(child: ChildProcess, output: () => string, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not up within ${timeoutMs / 1000} s:\n${output()}`)), timeoutMs);
    child.stdout!.on('data', () => {
      if (!output().includes('Press Ctrl-C to stop.')) return;
      clearTimeout(timer);
      resolve();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}:\n${output()}`));
    });
  });
}

/** `npm start` outlives its parent: a test or bench process that dies (a crash, a thrown error) stops it first. */
export function stopWithParent(child: ChildProcess, exited: Promise<unknown>): void {
  const stop = () => child.kill('SIGTERM');
  process.once('exit', stop);
  void exited.then(() => process.off('exit', stop));
}
