// The gateway in OpenAI's API shapes (/openai/v1), driven by the official `openai` client changed only in `baseURL`
// and `apiKey` (a gateway key): models listed and read, speech from the local eSpeak engine, images through the
// OpenAI-compatible provider (a stand-in upstream), each a task in the history, charged to the account; refusals as
// the SDK's typed errors.
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import OpenAI, { toFile } from 'openai';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { pythonOpenAiDir } from '../../src/infra/tools.ts';
import { projectRoot } from '../../src/infra/project-root.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { call } from '../helpers/http.ts';
import { wavTone } from '../helpers/media.ts';
import { type OpenAIStandIn, startOpenAIStandIn } from '../stand-ins/openai-compatible.ts';

let upstream: OpenAIStandIn;
let png: Buffer;

const gateway = useGateway(async () => {
  png = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#0088ff' } })
    .png()
    .toBuffer();
  upstream = await startOpenAIStandIn({
    png,
    mp3: Buffer.from('ID3-stand-in'),
    transcript: { text: 'Hello from the recording.', duration: 2 },
  });
  return { providers: { openai: { baseUrl: upstream.baseUrl, apiKey: 'sk-upstream-test' }, pollIntervalMs: 50 } };
});
afterAll(() => upstream?.close());

const developer = useFundedDeveloper(gateway);
const client = (apiKey = developer.key) =>
  new OpenAI({ baseURL: `${gateway.app.url}/openai/v1`, apiKey, maxRetries: 0 });

/** The task a call made, as the gateway's own history shows it. */
async function task(id: string | null) {
  expect(id).toMatch(/^gen_/);
  const listed = await call(gateway, 'GET', '/api/v1/generations?limit=50', { key: developer.key });
  return (listed.body.generations as { id: string; status: string; model: string; cost?: number }[]).find(
    (generation) => generation.id === id,
  );
}

describe('the OpenAI-shaped face', () => {
  it('lists the catalog as models and reads one by its id', async () => {
    const models = [];
    for await (const model of client().models.list()) models.push(model);
    expect(models).toContainEqual(expect.objectContaining({ id: 'local/espeak', object: 'model', owned_by: 'local' }));
    expect(await client().models.retrieve('local/espeak')).toMatchObject({ id: 'local/espeak', object: 'model' });
    await expect(client().models.retrieve('local/nothing')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('makes speech with local/espeak: audio bytes, a task in the history, charged', async () => {
    const before = await developer.balance();
    const { data, response } = await client()
      .audio.speech.create({ model: 'local/espeak', input: 'Hello from the gateway.', voice: 'alloy' })
      .withResponse();
    expect(response.headers.get('content-type')).toMatch(/^audio\//);
    const audio = Buffer.from(await data.arrayBuffer());
    expect(audio.subarray(0, 4).toString()).toBe('RIFF');
    const made = await task(response.headers.get('x-generation-id'));
    expect(made).toMatchObject({ status: 'completed', model: 'local/espeak' });
    expect(await developer.balance()).toBeLessThan(before);
  });

  it('makes an image through the OpenAI-compatible provider, as a link or as base64', async () => {
    const { data: linked, response } = await client()
      .images.generate({ model: 'openai/gpt-image-1', prompt: 'a blue square', size: '1024x1024' })
      .withResponse();
    expect(linked.data![0]!.url).toMatch(/\/files\//);
    expect((await fetch(linked.data![0]!.url!)).status).toBe(200);
    expect(await task(response.headers.get('x-generation-id'))).toMatchObject({ status: 'completed', cost: 0.042 });
    const inline = await client().images.generate({
      model: 'openai/gpt-image-1',
      prompt: 'a blue square',
      response_format: 'b64_json',
    });
    expect(Buffer.from(inline.data![0]!.b64_json!, 'base64').equals(png)).toBe(true);
  });

  it('refuses as the SDK expects: a bad field names the OpenAI param, a bad key is an authentication error', async () => {
    const refused = await client()
      .images.generate({ model: 'openai/gpt-image-1', prompt: 'x', size: '999x999' as '1024x1024' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect(refused).toMatchObject({ status: 400, code: 'validation_error', param: 'size' });
    const unknownModel = await client()
      .audio.speech.create({ model: 'local/nothing', input: 'hi', voice: 'alloy' })
      .catch((error: unknown) => error);
    expect(unknownModel).toBeInstanceOf(OpenAI.NotFoundError);
    expect(unknownModel).toMatchObject({ code: 'model_not_found', param: 'model' });
    expect((unknownModel as InstanceType<typeof OpenAI.APIError>).message).toContain('local/nothing');
    await expect(client('sk_not_a_key').models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    const tight = await call(gateway, 'POST', '/api/v1/keys', {
      key: developer.key,
      body: { name: 'tight', policy: { budget: { amount: 0.0001, window: 'day' } } },
    });
    const overBudget = await client(tight.body.api_key)
      .audio.speech.create({ model: 'local/espeak', input: 'Too dear for this key. '.repeat(30), voice: 'alloy' })
      .catch((error: unknown) => error);
    expect(overBudget).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(overBudget).toMatchObject({ code: 'budget_exceeded', type: 'permission_error' });
  });

  it('makes a video from local/ken-burns with an input_reference: create, retrieve until completed, download', async () => {
    const before = await developer.balance();
    const picture = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#aa3300' } })
      .png()
      .toBuffer();
    const created = await client().videos.create({
      model: 'local/ken-burns' as 'sora-2',
      prompt: 'slowly across the picture',
      seconds: '3' as '4',
      size: '1280x720',
      input_reference: await toFile(picture, 'picture.png', { type: 'image/png' }),
    });
    expect(created).toMatchObject({ object: 'video', model: 'local/ken-burns', seconds: '3' });
    let video = created;
    while (video.status === 'queued' || video.status === 'in_progress') {
      await new Promise((resolve) => setTimeout(resolve, 200));
      video = await client().videos.retrieve(created.id);
    }
    expect(video).toMatchObject({ id: created.id, status: 'completed', progress: 100 });
    const mp4 = Buffer.from(await (await client().videos.downloadContent(created.id)).arrayBuffer());
    expect(mp4.subarray(4, 8).toString()).toBe('ftyp');
    const listed = [];
    for await (const item of client().videos.list({ limit: 5 })) listed.push(item.id);
    expect(listed).toContain(created.id);
    expect(await task(created.id)).toMatchObject({ status: 'completed', model: 'local/ken-burns', cost: 0.003 });
    expect(await developer.balance()).toBeLessThan(before);
    // An ended video keeps its data: deleting it is refused, saying why.
    await expect(client().videos.delete(created.id)).rejects.toBeInstanceOf(OpenAI.ConflictError);
  });

  it('refuses a video length the model does not offer, naming seconds and what it offers', async () => {
    const refused = await client()
      .videos.create({ model: 'local/ken-burns' as 'sora-2', prompt: 'x', seconds: '4' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect(refused).toMatchObject({ param: 'seconds', message: expect.stringContaining('3, 5, 10') });
  });

  it('answers chat completions, whole and streamed, with the tokens the task was charged for', async () => {
    const messages = [
      { role: 'developer' as const, content: 'Be brief.' },
      { role: 'user' as const, content: 'Name a colour.' },
    ];
    const { data: whole, response } = await client()
      .chat.completions.create({ model: 'openai/qwen3-235b', messages, max_tokens: 50 })
      .withResponse();
    expect(whole.choices[0]!.message).toMatchObject({
      role: 'assistant',
      content: expect.stringContaining('Name a colour.'),
    });
    const made = await call(gateway, 'GET', `/api/v1/generations/${response.headers.get('x-generation-id')}`, {
      key: developer.key,
    });
    expect(made.body).toMatchObject({ status: 'completed', type: 'text-to-text' });
    expect(whole.usage).toEqual({
      prompt_tokens: made.body.usage.input_tokens,
      completion_tokens: made.body.usage.output_tokens,
      total_tokens: made.body.usage.input_tokens + made.body.usage.output_tokens,
    });

    const stream = await client().chat.completions.create({
      model: 'openai/qwen3-235b',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let streamed = '';
    let usage;
    for await (const chunk of stream) {
      streamed += chunk.choices[0]?.delta.content ?? '';
      usage ??= chunk.usage ?? undefined;
    }
    expect(streamed).toBe(whole.choices[0]!.message.content);
    expect(usage).toEqual(whole.usage);
  });

  it('streams a failed completion as the error event the SDK raises', async () => {
    const stream = await client().chat.completions.create({
      model: 'openai/qwen3-235b',
      messages: [{ role: 'user', content: '[[400]] refuse this' }],
      stream: true,
    });
    const read = async () => {
      for await (const chunk of stream) void chunk;
    };
    await expect(read()).rejects.toBeInstanceOf(OpenAI.APIError);
  });

  it('edits an image (an upscale with local/lanczos) and transcribes a recording (openai/whisper-1), both uploads', async () => {
    const picture = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#336699' } })
      .png()
      .toBuffer();
    const { data: edited, response } = await client()
      .images.edit({
        model: 'local/lanczos',
        prompt: 'twice as large',
        image: await toFile(picture, 'picture.png', { type: 'image/png' }),
      })
      .withResponse();
    const upscaled = await sharp(Buffer.from(await (await fetch(edited.data![0]!.url!)).arrayBuffer())).metadata();
    expect(upscaled.width).toBeGreaterThan(40);
    expect(await task(response.headers.get('x-generation-id'))).toMatchObject({ status: 'completed' });

    const transcript = await client().audio.transcriptions.create({
      model: 'openai/whisper-1',
      file: await toFile(wavTone(2), 'memo.wav', { type: 'audio/wav' }),
    });
    expect(transcript.text).toBe('Hello from the recording.');
    const plain = await client().audio.transcriptions.create({
      model: 'openai/whisper-1',
      file: await toFile(wavTone(2), 'memo.wav', { type: 'audio/wav' }),
      response_format: 'text',
    });
    expect(plain).toBe('Hello from the recording.');
  });

  it("answers OpenAI's Python client too: a model, speech, a chat completion and a video", async () => {
    const picture = join(await mkdtemp(join(tmpdir(), 'openai-python-')), 'picture.png');
    await writeFile(
      picture,
      await sharp({ create: { width: 64, height: 48, channels: 3, background: '#557700' } })
        .png()
        .toBuffer(),
    );
    const script = join(projectRoot, 'test', 'fixtures', 'openai_python_client.py');
    const { stdout } = await promisify(execFile)(
      'python3',
      [script, `${gateway.app.url}/openai/v1`, developer.key, picture],
      {
        env: { ...process.env, PYTHONPATH: pythonOpenAiDir },
        timeout: 120_000,
      },
    );
    const got = JSON.parse(stdout);
    expect(got).toMatchObject({
      model: 'local/espeak',
      speech_magic: 'RIFF',
      chat: expect.stringContaining('Name a colour.'),
      video: { status: 'completed' },
      video_magic: 'ftyp',
    });
    expect(got.chat_usage).toBeGreaterThan(0);
    expect(await task(got.speech_task)).toMatchObject({ status: 'completed', model: 'local/espeak' });
    expect(await task(got.video.id)).toMatchObject({ status: 'completed', model: 'local/ken-burns' });
  });
});
