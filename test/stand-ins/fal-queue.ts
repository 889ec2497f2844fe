// A local stand-in for fal's queue API as documented: POST /{endpoint} submits (IN_QUEUE with a position),
// GET /{app}/requests/{id}/status goes IN_QUEUE → IN_PROGRESS → COMPLETED over successive polls,
// GET /{app}/requests/{id} returns the result, PUT /{app}/requests/{id}/cancel cancels. Markers in the input's
// prompt choose failure modes: [[result-error]] (COMPLETED, then the result fetch fails with 422, as fal jobs
// can), [[422]] (submit rejected), [[500]] (the status call fails once), [[slow]] (stays IN_PROGRESS).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FalStandIn {
  queueUrl: string;
  submitted: { endpoint: string; input: Record<string, unknown> }[];
  cancelled: string[];
  close(): Promise<void>;
}

const readJson = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
};

export async function startFalStandIn(options: { key: string; output: Buffer }): Promise<FalStandIn> {
  const jobs = new Map<string, { polls: number; marker: string; cancelled: boolean }>();
  const submitted: FalStandIn['submitted'] = [];
  const cancelled: string[] = [];
  const failedOnce = new Set<string>();
  let base = '';
  const send = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    if (req.method === 'GET' && url.pathname.startsWith('/files/')) {
      res.writeHead(200, { 'content-type': 'image/png' }).end(options.output);
      return;
    }
    if (req.headers.authorization !== `Key ${options.key}`) return send(res, 401, { detail: 'Unauthorized' });
    const request = /^\/(.+?)\/requests\/([\w-]+)(\/status|\/cancel)?$/.exec(url.pathname);
    if (!request) {
      if (req.method !== 'POST') return send(res, 405, { detail: 'Method not allowed' });
      const input = await readJson(req);
      const marker = /\[\[[\w-]+\]\]/.exec(JSON.stringify(input))?.[0] ?? '';
      if (marker === '[[422]]') return send(res, 422, { detail: [{ loc: ['body', 'prompt'], msg: 'prompt is not allowed', type: 'value_error' }] });
      const id = `req-${jobs.size + 1}-${Date.now().toString(36)}`;
      jobs.set(id, { polls: 0, marker, cancelled: false });
      submitted.push({ endpoint: url.pathname.slice(1), input });
      const app = url.pathname.slice(1).split('/').slice(0, 2).join('/');
      return send(res, 200, {
        request_id: id, status: 'IN_QUEUE', queue_position: 2,
        response_url: `${base}/${app}/requests/${id}`, status_url: `${base}/${app}/requests/${id}/status`, cancel_url: `${base}/${app}/requests/${id}/cancel`,
      });
    }
    const [, , id, action] = request;
    const job = jobs.get(id!);
    if (!job) return send(res, 404, { detail: 'Request not found' });
    if (action === '/cancel' && req.method === 'PUT') {
      job.cancelled = true;
      cancelled.push(id!);
      return send(res, 202, { status: 'CANCELLATION_REQUESTED' });
    }
    if (action === '/status') {
      if (job.marker === '[[500]]' && !failedOnce.has(id!)) {
        failedOnce.add(id!);
        return send(res, 500, { detail: 'Internal server error' });
      }
      job.polls += 1;
      const status = job.polls === 1 ? 'IN_QUEUE' : job.polls === 2 || job.marker === '[[slow]]' ? 'IN_PROGRESS' : 'COMPLETED';
      return send(res, 200, { status, request_id: id, ...(status === 'IN_QUEUE' ? { queue_position: 1 } : {}), response_url: `${base}${url.pathname.replace(/\/status$/, '')}` });
    }
    if (job.marker === '[[result-error]]') return send(res, 422, { detail: 'Image contains NSFW content and was filtered.' });
    return send(res, 200, { images: [{ url: `${base}/files/${id}.png`, content_type: 'image/png', width: 24, height: 16 }], seed: 42, has_nsfw_concepts: [false] });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    queueUrl: base, submitted, cancelled,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
