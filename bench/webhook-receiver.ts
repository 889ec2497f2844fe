// The benchmark's webhook receiver: answers 200 to every delivery at once and notes when each task's webhook first
// arrived, so a phase's drain can wait for its webhooks and the end-to-end row can time them.
import { createServer } from 'node:http';
import type { Stop } from '../src/infra/processes/stops.ts';
import { closeServer, listenLocally } from '../harness/local-server.ts';

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;

/** The body's `data.id`; undefined when the body is not a task's event (it is then only counted). */
function taskIdOf(body: string): string | undefined {
  try {
    const id = (JSON.parse(body) as { data?: { id?: unknown } }).data?.id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

export async function startWebhookReceiver(stops: Stop[]) {
  const firstArrival = new Map<string, number>();
  const webhookIds = new Set<string>();
  let delivered = 0;
  let duplicates = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = Date.now();
      delivered++;
      // A retry of a delivery that landed: the service sends the same message again under its webhook-id.
      const webhookId = String(req.headers['webhook-id']);
      if (webhookIds.has(webhookId)) duplicates++;
      webhookIds.add(webhookId);
      const taskId = taskIdOf(Buffer.concat(chunks).toString('utf8'));
      if (taskId !== undefined && !firstArrival.has(taskId)) firstArrival.set(taskId, at);
      res.writeHead(200).end();
    });
  });
  const { url } = await listenLocally(server);
  stops.push({ name: 'bench webhook receiver', stop: () => closeServer(server) });
  return {
    url: `${url}/webhook`,
    /** When the task's first webhook arrived (Date.now()), if it has. */
    deliveredAt: (taskId: string): number | undefined => firstArrival.get(taskId),
    /** Every POST received. */
    get delivered() {
      return delivered;
    },
    /** POSTs whose webhook-id had come before. */
    get duplicates() {
      return duplicates;
    },
    /** Tasks that had a webhook. */
    get tasks() {
      return firstArrival.size;
    },
  };
}
