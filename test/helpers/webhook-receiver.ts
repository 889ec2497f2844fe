// A webhook receiver for tests: a real HTTP server that keeps every request it gets and answers what the test
// says (by default 200). It can start on a port chosen earlier, to play a receiver that is down and comes up.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Set by the answer function, e.g. the test server's clock. */
  at?: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
}

export interface Receiver {
  url: string;
  port: number;
  received: ReceivedWebhook[];
  close(): Promise<void>;
}

export async function startReceiver(
  answer: (request: ReceivedWebhook, index: number) => Answer | Promise<Answer> = () => ({ status: 200 }),
  port = 0,
): Promise<Receiver> {
  const received: ReceivedWebhook[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const request = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(request);
      const { status, headers } = await answer(request, received.length - 1);
      res.writeHead(status, headers).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}/hook`,
    port: bound,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Verifies with the standardwebhooks library's own `verify`; returns the parsed body or throws. */
export function verifyDelivery(secret: string, delivery: ReceivedWebhook): any {
  return new Webhook(secret).verify(delivery.body, {
    'webhook-id': String(delivery.headers['webhook-id']),
    'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
    'webhook-signature': String(delivery.headers['webhook-signature']),
  });
}
