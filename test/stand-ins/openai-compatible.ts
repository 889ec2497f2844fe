// A local stand-in for an OpenAI-compatible server, as the API documents it: POST /v1/chat/completions with its
// failure modes chosen by markers in the last user message ([[429]] once with Retry-After, [[500]] once, [[400]],
// [[401]] and [[403]] (our key refused),
// [[filter]] for finish_reason content_filter, [[slow]] answering the first time after 2.5 s, [[no-choices]]);
// /v1/images/generations (base64 PNGs; [[no-image]]: an entry without image); /v1/audio/speech (MP3 bytes;
// [[not-audio]]: a JSON body instead; [[refuse-once]]: 400 the first time); /v1/audio/transcriptions (multipart upload, verbose_json with the duration
// it was told); /v1/videos (multipart create; queued → in_progress → completed over retrievals, [[video-failed]]
// fails; /content serves the MP4; DELETE removes the job). Chat usage is counted by a real tokenizer (o200k), as a
// provider reports it.
import { encode, encodeChat } from 'gpt-tokenizer/model/gpt-4o';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { closeServer, listenLocally } from '../../harness/local-server.ts';

export interface ChatRequestRecord {
  body: Record<string, any>;
  authorization: string | undefined;
}

export interface OpenAIStandIn {
  baseUrl: string;
  requests: ChatRequestRecord[];
  /** Video jobs by id, with the multipart fields they were created with. */
  videos: Map<string, { fields: Record<string, string>; retrievals: number; deleted: boolean }>;
  /** Holds every speech request until the returned function is called (what runs upstream waits for a test). */
  holdSpeech(): () => void;
  close(): Promise<void>;
}

const readBody = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
};

/** The usage a chat completion reports: its messages and its answer as a real BPE tokenizer counts them. */
export const reportedTokens = {
  prompt: (messages: { role: string; content: string }[]) => encodeChat(messages as never).length,
  completion: (text: string) => encode(text).length,
};

const error = (message: string, type: string) => JSON.stringify({ error: { message, type, param: null, code: null } });

export interface OpenAIStandInMedia {
  png: Buffer;
  mp3: Buffer;
  /** What /audio/transcriptions answers, duration in seconds. */
  transcript: { text: string; duration: number };
  mp4?: Buffer;
}

const readRaw = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/** The text fields of a multipart/form-data body (enough for the SDK's video create). */
const multipartFields = (body: Buffer): Record<string, string> =>
  Object.fromEntries(
    [...body.toString('utf8').matchAll(/name="([^"]+)"\r\n\r\n([^\r]*)\r\n/g)].map((match) => [match[1]!, match[2]!]),
  );

export async function startOpenAIStandIn(media?: OpenAIStandInMedia): Promise<OpenAIStandIn> {
  const requests: ChatRequestRecord[] = [];
  const videos: OpenAIStandIn['videos'] = new Map();
  const failedOnce = new Set<string>();
  let speechHeld: Promise<void> = Promise.resolve();
  const json = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const videoView = (id: string) => {
    const video = videos.get(id)!;
    const status =
      video.fields.prompt?.includes('[[video-failed]]') && video.retrievals >= 2
        ? 'failed'
        : video.retrievals === 0
          ? 'queued'
          : video.retrievals === 1
            ? 'in_progress'
            : 'completed';
    return {
      id,
      object: 'video',
      model: video.fields.model,
      status,
      progress: status === 'completed' ? 100 : 40,
      prompt: video.fields.prompt,
      seconds: video.fields.seconds,
      size: video.fields.size,
      created_at: 1_763_700_000,
      completed_at: null,
      expires_at: null,
      remixed_from_video_id: null,
      error:
        status === 'failed'
          ? { code: 'moderation_blocked', message: 'Your request was blocked by our moderation system.' }
          : null,
    };
  };
  const server: Server = createServer(async (req, res) => {
    const video = /^\/v1\/videos(?:\/(\w+)(\/content)?)?$/.exec(req.url?.split('?')[0] ?? '');
    if (media?.mp4 && video) {
      const [, id, content] = video;
      if (req.method === 'POST' && !id) {
        const created = `video_${videos.size + 1}`;
        videos.set(created, { fields: multipartFields(await readRaw(req)), retrievals: 0, deleted: false });
        return json(res, 200, videoView(created));
      }
      const job = id ? videos.get(id) : undefined;
      if (!job || job.deleted) return json(res, 404, JSON.parse(error('Video not found', 'invalid_request_error')));
      if (req.method === 'DELETE') {
        job.deleted = true;
        return json(res, 200, { id, object: 'video.deleted', deleted: true });
      }
      if (content) {
        res.writeHead(200, { 'content-type': 'video/mp4' }).end(media.mp4);
        return;
      }
      const view = videoView(id!);
      job.retrievals += 1;
      return json(res, 200, view);
    }
    if (media && req.method === 'POST' && req.url === '/v1/audio/transcriptions') {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const multipart = Buffer.concat(chunks).toString('latin1');
      requests.push({
        body: { endpoint: 'transcriptions', multipart: multipart.slice(0, 2000), bytes: multipart.length },
        authorization: req.headers.authorization,
      });
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ task: 'transcribe', language: 'english', ...media.transcript, segments: [] }));
      return;
    }
    if (media && req.method === 'POST' && (req.url === '/v1/images/generations' || req.url === '/v1/audio/speech')) {
      const body = await readBody(req);
      requests.push({ body: { endpoint: req.url, ...body }, authorization: req.headers.authorization });
      if (req.url === '/v1/audio/speech') {
        await speechHeld;
        if (String(body.input).includes('[[not-audio]]')) return json(res, 200, {});
        // The first request with this input is refused as the moderation endpoint refuses: 400, the caller's.
        const input = String(body.input);
        if (input.includes('[[refuse-once]]') && !failedOnce.has(input) && failedOnce.add(input))
          return json(
            res,
            400,
            JSON.parse(error('Your input was flagged by our safety system.', 'invalid_request_error')),
          );
        res.writeHead(200, { 'content-type': 'audio/mpeg' }).end(media.mp3);
        return;
      }
      const image = String(body.prompt).includes('[[no-image]]') ? {} : { b64_json: media.png.toString('base64') };
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          created: Math.floor(Date.now() / 1000),
          data: Array.from({ length: body.n ?? 1 }, () => image),
        }),
      );
      return;
    }
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(error('Not found', 'invalid_request_error'));
      return;
    }
    const body = await readBody(req);
    requests.push({ body, authorization: req.headers.authorization });
    const last: string = body.messages?.at(-1)?.content ?? '';
    const once = (marker: string) =>
      last.includes(marker) && !failedOnce.has(last + marker) && failedOnce.add(last + marker);
    if (once('[[429]]')) {
      res
        .writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' })
        .end(error('Rate limit reached', 'rate_limit_error'));
      return;
    }
    // The gateway's own account refused, every time: a wrong key (401), a key without access (403).
    for (const status of [401, 403]) {
      if (last.includes(`[[${status}]]`)) {
        const message = status === 401 ? 'Incorrect API key provided: sk-wr***ng.' : 'Your key has no access here.';
        res.writeHead(status, { 'content-type': 'application/json' }).end(error(message, 'invalid_request_error'));
        return;
      }
    }
    if (once('[[500]]')) {
      res.writeHead(500, { 'content-type': 'application/json' }).end(error('The server had an error', 'server_error'));
      return;
    }
    if (once('[[slow]]')) await new Promise((resolve) => setTimeout(resolve, 2_500));
    if (last.includes('[[no-choices]]'))
      return json(res, 200, {
        id: 'chatcmpl-empty',
        object: 'chat.completion',
        created: 0,
        model: body.model,
        choices: [],
      });
    if (last.includes('[[400]]')) {
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(error('Invalid value for max_tokens', 'invalid_request_error'));
      return;
    }
    const content = `Echo: ${last}`;
    const promptTokens = reportedTokens.prompt(body.messages);
    const completionTokens = Math.min(body.max_tokens ?? 16, reportedTokens.completion(content));
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: `chatcmpl-${requests.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: last.includes('[[filter]]') ? null : content, refusal: null },
            finish_reason: last.includes('[[filter]]') ? 'content_filter' : 'stop',
            logprobs: null,
          },
        ],
        usage: {
          prompt_tokens: promptTokens,
          completion_tokens: completionTokens,
          total_tokens: promptTokens + completionTokens,
        },
      }),
    );
  });
  const { url } = await listenLocally(server);
  return {
    baseUrl: `${url}/v1`,
    requests,
    videos,
    holdSpeech: () => {
      let release = () => {};
      speechHeld = new Promise((resolve) => (release = resolve));
      return release;
    },
    close: () => closeServer(server),
  };
}
