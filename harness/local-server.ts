// Starting and stopping the local HTTP servers that tests and benchmarks run (inputs, stand-ins, receivers, the app).
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on 127.0.0.1 (port 0: one the system picks) and answers the bound port and the server's base URL. */
export async function listenLocally(server: Server, port = 0): Promise<{ port: number; url: string }> {
  // Rejects on a listen error (a chosen port already taken) rather than leaving the caller waiting.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  return { port: bound, url: `http://127.0.0.1:${bound}` };
}

/** Stops the server, including connections still open; resolves also when it was not listening. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    // Keep-alive sockets (and requests never answered) would otherwise hold close() open.
    server.closeAllConnections();
    // close() hands ERR_SERVER_NOT_RUNNING to its callback when the server never listened: closed all the same.
    server.close(() => resolve());
  });
}
