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
