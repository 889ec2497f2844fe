// A local stand-in for fal's queue API as documented: POST /{endpoint} submits (IN_QUEUE with a position),
// GET /{app}/requests/{id}/status goes IN_QUEUE → IN_PROGRESS → COMPLETED over successive polls,
// GET /{app}/requests/{id} returns the result, PUT /{app}/requests/{id}/cancel cancels. Markers in the input's
// prompt choose failure modes: [[result-error]] (COMPLETED, then the result fetch fails with 422, as fal jobs
// can), [[422]] (submit rejected), [[500]] (the status call fails once), [[slow]] (stays IN_PROGRESS),
// [[slow-status]] (the first status call answers after 2.5 s), [[malformed]] (a result without file URLs),
// [[fewer]] (one image, however many were asked for), [[429]] (the submission is throttled once, Retry-After: 1),
// [[queued]] (IN_QUEUE at positions 2, 1, 0 over three polls, then IN_PROGRESS for two, then COMPLETED),
// [[503]] (every submission answered 503 with Retry-After: 1, counted in `unavailable`: an outage).
// A job submitted with `?fal_webhook=` completes on its own shortly after and is announced by a POST signed as
// fal signs (ED25519 over request id, user id, timestamp and the body's SHA-256), with keys at /.well-known/jwks.json.
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { closeServer, listenLocally } from '../../harness/local-server.ts';
import { mediaTypes, type OutputMedia, serveMediaFile } from '../helpers/media.ts';
import { sendCallback, type SentCallback } from './callback-sender.ts';

export interface FalStandIn {
  queueUrl: string;
  jwksUrl: string;
  submitted: { endpoint: string; input: Record<string, unknown>; requestId: string; webhook: string | null }[];
  cancelled: string[];
  /** Submissions answered 503 ([[503]]). */
  unavailable: number;
  /** Status calls per request id. */
  statusCalls: Map<string, number>;
  callbacks: SentCallback[];
  /** fal's callback headers for `body`; `privateKey` and `timestamp` may be forged. */
  signCallback(
    requestId: string,
    body: string,
    forge?: { timestamp?: number; foreignKey?: boolean; userId?: string },
  ): Record<string, string>;
  close(): Promise<void>;
}

export const falStandInUserId = 'fal-user-1';
const userId = falStandInUserId;

const readJson = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
};

/** `kindOf` says what an endpoint makes (images by default); results take fal's shape for that kind. */
export async function startFalStandIn(options: {
  key: string;
  media: OutputMedia;
  kindOf?: (endpoint: string) => keyof OutputMedia;
}): Promise<FalStandIn> {
  const jobs = new Map<
    string,
    { polls: number; marker: string; cancelled: boolean; completed: boolean; count: number; endpoint: string }
  >();
  const submitted: FalStandIn['submitted'] = [];
  const cancelled: string[] = [];
  const statusCalls = new Map<string, number>();
  const callbacks: SentCallback[] = [];
  const failedOnce = new Set<string>();
  const signingKeys = generateKeyPairSync('ed25519');
  const foreignKeys = generateKeyPairSync('ed25519');
  let base = '';
  const send = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  // As many images as asked for ([[fewer]]: one, as when fal filters some out); one video, audio or 3D file.
  const result = (id: string, job: { marker: string; count: number; endpoint: string }) => {
    if (job.marker === '[[malformed]]') return { images: 'not-a-list', seed: 42 };
    const kind = options.kindOf?.(job.endpoint) ?? 'image';
    const file = (index: number) => ({
      url: `${base}/files/${id}-${index}.${mediaTypes[kind].extension}`,
      content_type: mediaTypes[kind].contentType,
    });
    switch (kind) {
      case 'video':
        return { video: file(0), seed: 42 };
      case 'audio':
        return { audio: file(0) };
      case 'model':
        return { model_mesh: file(0), timings: { inference: 1.5 } };
      default:
        return {
          images: Array.from({ length: job.marker === '[[fewer]]' ? 1 : job.count }, (_, index) => ({
            ...file(index),
            width: 24,
            height: 16,
          })),
          seed: 42,
          has_nsfw_concepts: [false],
        };
    }
  };
  const signCallback: FalStandIn['signCallback'] = (requestId, body, forge = {}) => {
    const timestamp = String(forge.timestamp ?? Math.floor(Date.now() / 1000));
    const signer = forge.userId ?? userId;
    const message = [requestId, signer, timestamp, createHash('sha256').update(body).digest('hex')].join('\n');
    const key = forge.foreignKey ? foreignKeys.privateKey : signingKeys.privateKey;
    return {
      'x-fal-webhook-request-id': requestId,
      'x-fal-webhook-user-id': signer,
      'x-fal-webhook-timestamp': timestamp,
      'x-fal-webhook-signature': sign(null, Buffer.from(message), key).toString('hex'),
    };
  };
  // Like fal: the job finishes on its own, then its result is POSTed to the webhook.
  const completeWithCallback = (id: string, webhook: string) =>
    setTimeout(() => {
      const job = jobs.get(id)!;
      if (job.cancelled) return;
      job.completed = true;
      const body = JSON.stringify({ request_id: id, gateway_request_id: id, status: 'OK', payload: result(id, job) });
      void sendCallback(webhook, signCallback(id, body), body, callbacks);
    }, 200);

  const standIn: FalStandIn = {
    queueUrl: '',
    jwksUrl: '',
    submitted,
    cancelled,
    unavailable: 0,
    statusCalls,
    callbacks,
    signCallback,
    close: () => closeServer(server),
  };
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    if (req.method === 'GET' && serveMediaFile(url.pathname, options.media, res)) return;
    if (req.method === 'GET' && url.pathname === '/.well-known/jwks.json') {
      const jwk = signingKeys.publicKey.export({ format: 'jwk' });
      return send(res, 200, { keys: [{ ...jwk, kid: 'stand-in-1', use: 'sig', alg: 'EdDSA' }] });
    }
    if (req.headers.authorization !== `Key ${options.key}`) return send(res, 401, { detail: 'Unauthorized' });
    const request = /^\/(.+?)\/requests\/([\w-]+)(\/status|\/cancel)?$/.exec(url.pathname);
    if (!request) {
      if (req.method !== 'POST') return send(res, 405, { detail: 'Method not allowed' });
      const input = await readJson(req);
      const marker = /\[\[[\w-]+\]\]/.exec(JSON.stringify(input))?.[0] ?? '';
      if (marker === '[[422]]')
        return send(res, 422, {
          detail: [{ loc: ['body', 'prompt'], msg: 'prompt is not allowed', type: 'value_error' }],
        });
      if (marker === '[[503]]') {
        standIn.unavailable += 1;
        res
          .writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' })
          .end(JSON.stringify({ detail: 'Service temporarily unavailable' }));
        return;
      }
      if (marker === '[[429]]' && !failedOnce.has(JSON.stringify(input))) {
        failedOnce.add(JSON.stringify(input));
        res
          .writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' })
          .end(JSON.stringify({ detail: 'Too many requests' }));
        return;
      }
      const id = `req-${jobs.size + 1}-${Date.now().toString(36)}`;
      const webhook = url.searchParams.get('fal_webhook');
      jobs.set(id, {
        polls: 0,
        marker,
        cancelled: false,
        completed: false,
        count: Number(input.num_images ?? 1),
        endpoint: url.pathname.slice(1),
      });
      submitted.push({ endpoint: url.pathname.slice(1), input, requestId: id, webhook });
      if (webhook && marker !== '[[slow]]') completeWithCallback(id, webhook);
      const app = url.pathname.slice(1).split('/').slice(0, 2).join('/');
      return send(res, 200, {
        request_id: id,
        status: 'IN_QUEUE',
        queue_position: 2,
        response_url: `${base}/${app}/requests/${id}`,
        status_url: `${base}/${app}/requests/${id}/status`,
        cancel_url: `${base}/${app}/requests/${id}/cancel`,
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
      statusCalls.set(id!, (statusCalls.get(id!) ?? 0) + 1);
      if ((job.marker === '[[500]]' || job.marker === '[[slow-status]]') && !failedOnce.has(id!)) {
        failedOnce.add(id!);
        if (job.marker === '[[500]]') return send(res, 500, { detail: 'Internal server error' });
        await new Promise((resolve) => setTimeout(resolve, 2_500));
      }
      job.polls += 1;
      if (job.marker === '[[queued]]' && !job.completed) {
        const queued = job.polls <= 3;
        return send(res, 200, {
          status: queued ? 'IN_QUEUE' : job.polls <= 5 ? 'IN_PROGRESS' : 'COMPLETED',
          request_id: id,
          ...(queued ? { queue_position: 3 - job.polls } : {}),
          response_url: `${base}${url.pathname.replace(/\/status$/, '')}`,
        });
      }
      const status = job.completed
        ? 'COMPLETED'
        : job.polls === 1
          ? 'IN_QUEUE'
          : job.polls === 2 || job.marker === '[[slow]]'
            ? 'IN_PROGRESS'
            : 'COMPLETED';
      return send(res, 200, {
        status,
        request_id: id,
        ...(status === 'IN_QUEUE' ? { queue_position: 1 } : {}),
        response_url: `${base}${url.pathname.replace(/\/status$/, '')}`,
      });
    }
    if (job.marker === '[[result-error]]')
      return send(res, 422, { detail: 'Image contains NSFW content and was filtered.' });
    return send(res, 200, result(id!, job));
  });
  base = (await listenLocally(server)).url;
  Object.assign(standIn, { queueUrl: base, jwksUrl: `${base}/.well-known/jwks.json` });
  return standIn;
}
