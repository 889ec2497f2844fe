// Processes as the tests see them from outside: alive or not, and which ones use a directory.
import { execFileSync } from 'node:child_process';

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
