// CPU time of this process's threads, grouped by their name (/proc/self/task/*/comm): the main JavaScript thread,
// the workflow worker threads, the Temporal SDK core's tokio threads, libuv's pool, V8's helpers.
import { readdirSync, readFileSync } from 'node:fs';

// USER_HZ: the unit of utime and stime in /proc/<pid>/stat; 100 on every Linux we run on.
const ticksPerSecond = 100;

const cpuMsOf = (stat: string) => {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
};

function threadCpu(pid: string, tid: string): { name: string; cpuMs: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const isMain = tid === (pid === 'self' ? String(process.pid) : pid);
    const name = isMain ? 'main thread' : readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8');
    return { name: name.trim(), cpuMs: cpuMsOf(stat) };
  } catch {
    return undefined; // it ended while we looked
  }
}

/**
 * CPU ms so far per thread name (threads of one name summed) of this process or of `pids`; `ended threads`: what
 * threads no longer there used (short-lived ones: the vm module's watchdog around each call into a workflow sandbox).
 */
export function sampleThreadCpu(pids: (number | 'self')[] = ['self']): Map<string, number> {
  const byName = new Map<string, number>();
  const add = (name: string, ms: number) => byName.set(name, (byName.get(name) ?? 0) + ms);
  for (const pid of pids.map(String)) {
    let live = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const thread = threadCpu(pid, tid);
      if (!thread) continue;
      add(thread.name, thread.cpuMs);
      live += thread.cpuMs;
    }
    add('ended threads', Math.max(0, cpuMsOf(readFileSync(`/proc/${pid}/stat`, 'utf8')) - live));
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
