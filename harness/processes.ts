// Processes as the tests, the bench and the fault suite see them from outside: alive or not, which ones use a
// directory, and when what a killed service left is gone.
import { execFileSync } from 'node:child_process';
import { portIsFree } from '../src/infra/ports.ts';
import { sleep } from '../src/infra/processes/supervised-process.ts';

/** Processes whose command line names a data directory: PostgreSQL (-D), the dev server (--db-filename), the chain. */
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
