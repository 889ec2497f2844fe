import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Whether nothing listens on host:port now (we could bind it). */
export function portIsFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EADDRINUSE' || error.code === 'EACCES' ? resolve(false) : reject(error),
    );
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

export interface ListenPort {
  /** The setting that chooses it, named in the error. */
  setting: string;
  port: number;
  host: string;
  /** What would listen there: "the API". */
  listener: string;
}

/**
 * Refuses to go on when another process holds one of the ports we are to listen on, naming its setting: checked
 * before anything starts, so a clash costs no PostgreSQL or Temporal start-up and leaves nothing running.
 */
export async function ensurePortsFree(ports: ListenPort[]): Promise<void> {
  for (const { setting, port, host, listener } of ports) {
    if (port !== 0 && !(await portIsFree(port, host))) {
      throw new Error(
        `Port ${port} (${setting}) on ${host} is already in use by another process, so ${listener} cannot listen ` +
          `there. Stop that process or set ${setting} to a free port (in the environment or .env).`,
      );
    }
  }
}

// Free local ports for processes we start (the cluster's internal listeners, the tests' servers), picked at random.
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
