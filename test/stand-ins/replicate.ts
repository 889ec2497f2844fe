// A local stand-in for Replicate's HTTP API as documented: POST /v1/models/{owner}/{name}/predictions,
// GET /v1/predictions/{id}, POST /v1/predictions/{id}/cancel; a prediction goes starting → processing →
// succeeded (output URLs served here) over successive polls. Failure modes are chosen by markers in the
// input's `prompt` or image URL: [[failed]] (the model errors), [[422]] (input rejected), [[429]] (rate limited
// once, with Retry-After), [[empty]] (succeeds without output), [[slow]] (never finishes).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReplicateStandIn {
  baseUrl: string;
  created: { model: string; input: Record<string, unknown> }[];
  cancelled: string[];
  close(): Promise<void>;
}

interface StoredPrediction {
  id: string;
  model: string;
  input: Record<string, unknown>;
  polls: number;
  status: string;
  marker: string;
}

const readJson = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
};

export async function startReplicateStandIn(options: { token: string; output: Buffer }): Promise<ReplicateStandIn> {
  const predictions = new Map<string, StoredPrediction>();
  const created: ReplicateStandIn['created'] = [];
  const cancelled: string[] = [];
  const rateLimited = new Set<string>();
  let baseUrl = '';

  const view = (prediction: StoredPrediction) => {
    const succeeded = prediction.status === 'succeeded';
    return {
      id: prediction.id, model: prediction.model, version: 'hidden', input: prediction.input, status: prediction.status, source: 'api',
      output: succeeded && prediction.marker !== '[[empty]]' ? [`${baseUrl}/files/${prediction.id}.png`] : null,
      error: prediction.status === 'failed' ? 'NSFW content detected. Try running it again, or try a different prompt.' : null,
      logs: '', data_removed: false, metrics: succeeded ? { predict_time: 1.2 } : {},
      urls: { get: `${baseUrl}/v1/predictions/${prediction.id}`, cancel: `${baseUrl}/v1/predictions/${prediction.id}/cancel` },
    };
  };
  const send = (res: import('node:http').ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

  const server: Server = createServer(async (req, res) => {
    const url = req.url ?? '';
    if (req.method === 'GET' && url.startsWith('/files/')) {
      res.writeHead(200, { 'content-type': 'image/png' }).end(options.output);
      return;
    }
    if (req.headers.authorization !== `Bearer ${options.token}`) return send(res, 401, { title: 'Unauthenticated', detail: 'You did not pass a valid authentication token', status: 401 });
    const create = /^\/v1\/models\/([\w.-]+)\/([\w.-]+)\/predictions$/.exec(url);
    if (req.method === 'POST' && create) {
      const { input } = await readJson(req);
      const text = JSON.stringify(input);
      const marker = /\[\[\w+\]\]/.exec(text)?.[0] ?? '';
      if (marker === '[[422]]') return send(res, 422, { title: 'Input validation failed', detail: 'input.image: Does not match format uri', status: 422 });
      if (marker === '[[429]]' && !rateLimited.has(text)) {
        rateLimited.add(text);
        return send(res, 429, { title: 'Too Many Requests', detail: 'Request was throttled.', status: 429 }, { 'retry-after': '1' });
      }
      const prediction: StoredPrediction = { id: `p${predictions.size + 1}x${Date.now().toString(36)}`, model: `${create[1]}/${create[2]}`, input, polls: 0, status: 'starting', marker };
      predictions.set(prediction.id, prediction);
      created.push({ model: prediction.model, input });
      return send(res, 201, view(prediction));
    }
    const get = /^\/v1\/predictions\/(\w+)(\/cancel)?$/.exec(url);
    const prediction = get ? predictions.get(get[1]!) : undefined;
    if (!prediction) return send(res, 404, { title: 'Not found', detail: 'Not found.', status: 404 });
    if (req.method === 'POST' && get![2]) {
      if (!['succeeded', 'failed'].includes(prediction.status)) prediction.status = 'canceled';
      cancelled.push(prediction.id);
      return send(res, 200, view(prediction));
    }
    if (req.method === 'GET' && !get![2]) {
      prediction.polls += 1;
      if (prediction.status === 'starting') prediction.status = 'processing';
      else if (prediction.status === 'processing' && prediction.marker !== '[[slow]]' && prediction.polls >= 2) {
        prediction.status = prediction.marker === '[[failed]]' ? 'failed' : 'succeeded';
      }
      return send(res, 200, view(prediction));
    }
    return send(res, 405, { title: 'Method not allowed', status: 405 });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl: `${baseUrl}/v1`, created, cancelled,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
