// CPU time of this process's threads, grouped by their name (/proc/self/task/*/comm): the main JavaScript thread,
// the workflow worker threads, the Temporal SDK core's tokio threads, libuv's pool, V8's helpers.
import { readdirSync, readFileSync } from 'node:fs';

// USER_HZ: the unit of utime and stime in /proc/<pid>/stat; 100 on every Linux we run on.
const ticksPerSecond = 100;

function threadCpu(tid: string): { name: string; cpuMs: number } | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const name = tid === String(process.pid) ? 'main thread' : readFileSync(`/proc/self/task/${tid}/comm`, 'utf8');
    return { name: name.trim(), cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond };
  } catch {
    return undefined; // it ended while we looked
  }
}

/** CPU ms so far per thread name (threads of one name summed). */
export function sampleThreadCpu(): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    const thread = threadCpu(tid);
    if (thread) byName.set(thread.name, (byName.get(thread.name) ?? 0) + thread.cpuMs);
  }
  return byName;
}

/** CPU ms per thread name between two samples, largest first. */
export function threadCpuBetween(before: Map<string, number>, after: Map<string, number>): [string, number][] {
  return [...after]
    .map(([name, ms]): [string, number] => [name, ms - (before.get(name) ?? 0)])
    .filter(([, ms]) => ms > 0)
    .sort((a, b) => b[1] - a[1]);
}
