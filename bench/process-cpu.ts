// CPU time of this process and of the servers it started (the Temporal dev server, PostgreSQL and its backends; the
// cluster's processes), read from /proc, so the benchmark can say what one admission costs each of them.
import { readdirSync, readFileSync } from 'node:fs';

export interface CpuSample {
  nodeMs: number;
  temporalMs: number;
  postgresMs: number;
}

// USER_HZ: the unit of utime and stime in /proc/<pid>/stat; 100 on every Linux we run on.
const ticksPerSecond = 100;

interface ProcessStat {
  pid: number;
  parent: number;
  command: string;
  cpuMs: number;
  endedChildrenMs: number;
}

function readStat(pid: number): ProcessStat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command sits in parentheses and may hold spaces; the fields after it are space-separated.
    const command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpuTicks = Number(fields[11]) + Number(fields[12]);
    // cutime and cstime: its children that ended (PostgreSQL's backends come and go).
    const endedTicks = Number(fields[13]) + Number(fields[14]);
    const ms = (ticks: number) => (ticks * 1000) / ticksPerSecond;
    return { pid, parent: Number(fields[1]), command, cpuMs: ms(cpuTicks), endedChildrenMs: ms(endedTicks) };
  } catch {
    return undefined; // it ended while we looked
  }
}

/** Every process's stat, and each one's children. */
function processTree() {
  const stats = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => readStat(Number(name)) ?? []);
  const children = new Map<number, ProcessStat[]>();
  for (const stat of stats) children.set(stat.parent, [...(children.get(stat.parent) ?? []), stat]);
  return { byPid: new Map(stats.map((stat) => [stat.pid, stat])), children };
}

/** CPU used so far by each of `roots` with all its descendants, those that ended included. */
export function treeCpuMs(roots: number[]): Map<number, number> {
  const { byPid, children } = processTree();
  const total = (stat: ProcessStat | undefined): number =>
    stat === undefined
      ? 0
      : stat.cpuMs + stat.endedChildrenMs + (children.get(stat.pid) ?? []).reduce((ms, child) => ms + total(child), 0);
  return new Map(roots.map((pid) => [pid, total(byPid.get(pid))]));
}

/** `rootPid` and its descendants whose command `kindOf` names `kind`. */
export function treePids(rootPid: number, kindOf: (command: string) => string, kind: string): number[] {
  const { byPid, children } = processTree();
  const found: number[] = [];
  const visit = (stat: ProcessStat | undefined) => {
    if (!stat) return;
    if (kindOf(stat.command) === kind) found.push(stat.pid);
    for (const child of children.get(stat.pid) ?? []) visit(child);
  };
  visit(byPid.get(rootPid));
  return found;
}

/** The most memory `pid` has held resident (VmHWM), in MB. */
export function peakRssMb(pid: number): number {
  const kilobytes = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kilobytes) / 1024;
}

/**
 * CPU used so far by `rootPid` and its descendants (those that ended included), summed by `kindOf` their command
 * (`node`, `temporal`, `postgres`, …).
 */
export function treeCpuByKind(rootPid: number, kindOf: (command: string) => string): Record<string, number> {
  const { byPid, children } = processTree();
  const byKind: Record<string, number> = {};
  const visit = (stat: ProcessStat | undefined) => {
    if (!stat) return;
    const kind = kindOf(stat.command);
    byKind[kind] = (byKind[kind] ?? 0) + stat.cpuMs + stat.endedChildrenMs;
    for (const child of children.get(stat.pid) ?? []) visit(child);
  };
  visit(byPid.get(rootPid));
  return byKind;
}

/** CPU used so far by this process and by its descendants, grouped by what they are. */
export function sampleCpu(): CpuSample {
  const { children } = processTree();
  const sample: CpuSample = { nodeMs: 0, temporalMs: 0, postgresMs: 0 };
  const usage = process.cpuUsage();
  sample.nodeMs = (usage.user + usage.system) / 1000;
  const visit = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      if (child.command.startsWith('temporal')) sample.temporalMs += child.cpuMs;
      else if (child.command.startsWith('postgres')) sample.postgresMs += child.cpuMs;
      visit(child.pid);
    }
  };
  visit(process.pid);
  return sample;
}

export const cpuBetween = (before: CpuSample, after: CpuSample): CpuSample => ({
  nodeMs: after.nodeMs - before.nodeMs,
  temporalMs: after.temporalMs - before.temporalMs,
  postgresMs: after.postgresMs - before.postgresMs,
});
