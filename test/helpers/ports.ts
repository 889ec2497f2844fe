import { readFileSync } from 'node:fs';
import { portIsFree } from '../../src/infra/ports.ts';

// Below the kernel's ephemeral range: a port picked there and handed to a child process later cannot meanwhile be
// taken by another process's listen(0) or outgoing connection (the dev server's internal services bind that way).
const ephemeralLow = (() => {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
})();
const low = 10_000;
const high = Math.max(low + 1_000, ephemeralLow) - 1;

/** A port free a moment ago on 127.0.0.1, outside the ephemeral range; random, so parallel test files differ. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (await portIsFree(port)) return port;
  }
  throw new Error(`no free port between ${low} and ${high}`);
}
