// A local stand-in for an OpenAI-compatible server, as the API documents it: POST /v1/chat/completions with its
// failure modes chosen by markers in the last user message ([[429]] once with Retry-After, [[500]] once, [[400]],
// [[filter]] for finish_reason content_filter); /v1/images/generations (base64 PNGs); /v1/audio/speech (MP3
// bytes); /v1/audio/transcriptions (multipart upload, verbose_json with the duration it was told).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatRequestRecord {
  body: Record<string, any>;
  authorization: string | undefined;
}

export interface OpenAIStandIn {
  baseUrl: string;
  requests: ChatRequestRecord[];
  close(): Promise<void>;
}

const readBody = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
};

const error = (message: string, type: string) => JSON.stringify({ error: { message, type, param: null, code: null } });

export interface OpenAIStandInMedia {
  png: Buffer;
  mp3: Buffer;
  /** What /audio/transcriptions answers, duration in seconds. */
  transcript: { text: string; duration: number };
}

export async function startOpenAIStandIn(media?: OpenAIStandInMedia): Promise<OpenAIStandIn> {
  const requests: ChatRequestRecord[] = [];
  const failedOnce = new Set<string>();
  const server: Server = createServer(async (req, res) => {
    if (media && req.method === 'POST' && req.url === '/v1/audio/transcriptions') {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const multipart = Buffer.concat(chunks).toString('latin1');
      requests.push({ body: { endpoint: 'transcriptions', multipart: multipart.slice(0, 2000), bytes: multipart.length }, authorization: req.headers.authorization });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ task: 'transcribe', language: 'english', ...media.transcript, segments: [] }));
      return;
    }
    if (media && req.method === 'POST' && (req.url === '/v1/images/generations' || req.url === '/v1/audio/speech')) {
      const body = await readBody(req);
      requests.push({ body: { endpoint: req.url, ...body }, authorization: req.headers.authorization });
      if (req.url === '/v1/audio/speech') {
        res.writeHead(200, { 'content-type': 'audio/mpeg' }).end(media.mp3);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
        created: Math.floor(Date.now() / 1000), data: Array.from({ length: body.n ?? 1 }, () => ({ b64_json: media.png.toString('base64') })),
      }));
      return;
    }
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(error('Not found', 'invalid_request_error'));
      return;
    }
    const body = await readBody(req);
    requests.push({ body, authorization: req.headers.authorization });
    const last: string = body.messages?.at(-1)?.content ?? '';
    const once = (marker: string) => last.includes(marker) && !failedOnce.has(last + marker) && failedOnce.add(last + marker);
    if (once('[[429]]')) {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' }).end(error('Rate limit reached', 'rate_limit_error'));
      return;
    }
    if (once('[[500]]')) {
      res.writeHead(500, { 'content-type': 'application/json' }).end(error('The server had an error', 'server_error'));
      return;
    }
    if (last.includes('[[400]]')) {
      res.writeHead(400, { 'content-type': 'application/json' }).end(error('Invalid value for max_tokens', 'invalid_request_error'));
      return;
    }
    const content = `Echo: ${last}`;
    const promptTokens = Math.ceil(JSON.stringify(body.messages).length / 4);
    const completionTokens = Math.min(body.max_tokens ?? 16, Math.ceil(content.length / 4));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
      id: `chatcmpl-${requests.length}`, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: body.model,
      choices: [{
        index: 0, message: { role: 'assistant', content: last.includes('[[filter]]') ? null : content, refusal: null },
        finish_reason: last.includes('[[filter]]') ? 'content_filter' : 'stop', logprobs: null,
      }],
      usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
    }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
