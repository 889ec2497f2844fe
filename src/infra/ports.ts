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
