// A webhook receiver for tests: a real HTTP server that keeps every request it gets and answers what the test
// says (by default 200). It can start on a port chosen earlier, to play a receiver that is down and comes up.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { closeServer, listenLocally } from './local-server.ts';

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
  const { port: bound, url } = await listenLocally(server, port);
  return {
    url: `${url}/hook`,
    port: bound,
    received,
    close: () => closeServer(server),
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
