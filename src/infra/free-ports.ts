// Free local ports for processes we start (the cluster's internal listeners, the tests' servers), picked at random.
import { readFileSync } from 'node:fs';
import { portIsFree } from './ports.ts';

// Below the kernel's ephemeral range: a port picked here and handed to a child later cannot meanwhile be taken by
// another process's outgoing connection.
const ephemeralLow = (() => {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
})();
const low = 10_000;
const high = Math.max(low + 1_000, ephemeralLow) - 1;

/** `count` distinct ports free a moment ago on 127.0.0.1, none of them in `taken`. */
export async function freePorts(count: number, taken: Iterable<number> = []): Promise<number[]> {
  const picked = new Set<number>(taken);
  const ports: number[] = [];
  for (let attempt = 0; ports.length < count; attempt++) {
    if (attempt > 2_000) throw new Error(`no ${count} free ports between ${low} and ${high}`);
    const port = low + Math.floor(Math.random() * (high - low));
    if (picked.has(port) || !(await portIsFree(port))) continue;
    picked.add(port);
    ports.push(port);
  }
  return ports;
}
