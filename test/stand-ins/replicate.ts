// A local stand-in for Replicate's HTTP API as documented: POST /v1/models/{owner}/{name}/predictions,
// GET /v1/predictions/{id}, POST /v1/predictions/{id}/cancel; a prediction goes starting → processing →
// succeeded (output URLs served here) over successive polls. Failure modes are chosen by markers in the
// input's `prompt` or image URL: [[failed]] (the model errors), [[422]] (input rejected), [[429]] (rate limited
// once, with Retry-After), [[empty]] (succeeds without output), [[slow]] (never finishes), [[slow-get]] (the first
// GET answers after 2.5 s), [[malformed]] (succeeds with an output that holds no URL). A prediction created with
// a `webhook` finishes on its own shortly after and is POSTed there, signed as Replicate signs (Standard
// Webhooks: HMAC-SHA256 with the secret served at GET /v1/webhooks/default/secret).
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { closeServer, listenLocally } from '../../harness/local-server.ts';
import { mediaTypes, type OutputMedia, serveMediaFile } from '../helpers/media.ts';
import { sendCallback, type SentCallback } from './callback-sender.ts';

export interface ReplicateStandIn {
  baseUrl: string;
  created: { id: string; model: string; input: Record<string, unknown>; webhook: string | null }[];
  cancelled: string[];
  /** GETs per prediction id. */
  gets: Map<string, number>;
  callbacks: SentCallback[];
  /** Replicate's webhook headers for `body`; the secret and timestamp may be forged. */
  signCallback(body: string, forge?: { timestamp?: number; secret?: string }): Record<string, string>;
  close(): Promise<void>;
}

export const replicateWebhookSecret = 'whsec_c3RhbmQtaW4gd2ViaG9vayBzZWNyZXQgMzIgYnl0ZXM=';

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

/** `kindOf` says what a model makes (images by default): an image model answers a list of URLs, others one URL. */
export async function startReplicateStandIn(options: {
  token: string;
  media: OutputMedia;
  kindOf?: (model: string) => keyof OutputMedia;
}): Promise<ReplicateStandIn> {
  const predictions = new Map<string, StoredPrediction>();
  const created: ReplicateStandIn['created'] = [];
  const cancelled: string[] = [];
  const rateLimited = new Set<string>();
  const gets = new Map<string, number>();
  const callbacks: SentCallback[] = [];
  const slowOnce = new Set<string>();
  let baseUrl = '';
  let messages = 0;
  const signCallback: ReplicateStandIn['signCallback'] = (body, forge = {}) => {
    const id = `msg_${++messages}`;
    const timestamp = String(forge.timestamp ?? Math.floor(Date.now() / 1000));
    const key = Buffer.from((forge.secret ?? replicateWebhookSecret).slice('whsec_'.length), 'base64');
    return {
      'webhook-id': id,
      'webhook-timestamp': timestamp,
      'webhook-signature': `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`,
    };
  };

  const view = (prediction: StoredPrediction) => {
    const succeeded = prediction.status === 'succeeded';
    const kind = options.kindOf?.(prediction.model) ?? 'image';
    const file = `${baseUrl}/files/${prediction.id}.${mediaTypes[kind].extension}`;
    // As many images as `num_outputs` asks for (FLUX), one otherwise.
    const images = Array.from(
      { length: Number(prediction.input.num_outputs ?? 1) },
      (_, index) => `${baseUrl}/files/${prediction.id}-${index}.${mediaTypes[kind].extension}`,
    );
    return {
      id: prediction.id,
      model: prediction.model,
      version: 'hidden',
      input: prediction.input,
      status: prediction.status,
      source: 'api',
      output:
        !succeeded || prediction.marker === '[[empty]]'
          ? null
          : prediction.marker === '[[malformed]]'
            ? { unexpected: 'shape' }
            : kind === 'image'
              ? images
              : file,
      error:
        prediction.status === 'failed'
          ? 'NSFW content detected. Try running it again, or try a different prompt.'
          : null,
      logs: '',
      data_removed: false,
      metrics: succeeded ? { predict_time: 1.2 } : {},
      urls: {
        get: `${baseUrl}/v1/predictions/${prediction.id}`,
        cancel: `${baseUrl}/v1/predictions/${prediction.id}/cancel`,
      },
    };
  };
  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

  const server: Server = createServer(async (req, res) => {
    const url = req.url ?? '';
    if (req.method === 'GET' && serveMediaFile(url, options.media, res)) return;
    if (req.headers.authorization !== `Bearer ${options.token}`)
      return send(res, 401, {
        title: 'Unauthenticated',
        detail: 'You did not pass a valid authentication token',
        status: 401,
      });
    if (req.method === 'GET' && url === '/v1/webhooks/default/secret')
      return send(res, 200, { key: replicateWebhookSecret });
    const create = /^\/v1\/models\/([\w.-]+)\/([\w.-]+)\/predictions$/.exec(url);
    if (req.method === 'POST' && create) {
      const { input, webhook } = await readJson(req);
      const text = JSON.stringify(input);
      const marker = /\[\[[\w-]+\]\]/.exec(text)?.[0] ?? '';
      if (marker === '[[422]]')
        return send(res, 422, {
          title: 'Input validation failed',
          detail: 'input.image: Does not match format uri',
          status: 422,
        });
      if (marker === '[[429]]' && !rateLimited.has(text)) {
        rateLimited.add(text);
        return send(
          res,
          429,
          { title: 'Too Many Requests', detail: 'Request was throttled.', status: 429 },
          { 'retry-after': '1' },
        );
      }
      const prediction: StoredPrediction = {
        id: `p${predictions.size + 1}x${Date.now().toString(36)}`,
        model: `${create[1]}/${create[2]}`,
        input,
        polls: 0,
        status: 'starting',
        marker,
      };
      predictions.set(prediction.id, prediction);
      created.push({ id: prediction.id, model: prediction.model, input, webhook: webhook ?? null });
      // Like Replicate: the prediction finishes on its own, then the `completed` event is POSTed to the webhook.
      if (webhook && marker !== '[[slow]]')
        setTimeout(() => {
          if (prediction.status === 'canceled') return;
          prediction.status = marker === '[[failed]]' ? 'failed' : 'succeeded';
          const body = JSON.stringify(view(prediction));
          void sendCallback(webhook, signCallback(body), body, callbacks);
        }, 200);
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
      gets.set(prediction.id, (gets.get(prediction.id) ?? 0) + 1);
      if (prediction.marker === '[[slow-get]]' && !slowOnce.has(prediction.id)) {
        slowOnce.add(prediction.id);
        await new Promise((resolve) => setTimeout(resolve, 2_500));
      }
      prediction.polls += 1;
      if (prediction.status === 'starting') prediction.status = 'processing';
      else if (prediction.status === 'processing' && prediction.marker !== '[[slow]]' && prediction.polls >= 2) {
        prediction.status = prediction.marker === '[[failed]]' ? 'failed' : 'succeeded';
      }
      return send(res, 200, view(prediction));
    }
    return send(res, 405, { title: 'Method not allowed', status: 405 });
  });
  baseUrl = (await listenLocally(server)).url;
  return {
    baseUrl: `${baseUrl}/v1`,
    created,
    cancelled,
    gets,
    callbacks,
    signCallback,
    close: () => closeServer(server),
  };
}
