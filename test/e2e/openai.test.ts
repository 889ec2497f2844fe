// OpenAI-compatible models through the real stack against a stand-in server. text-to-text: messages folded into a
// system prompt and a transcript, parameters passed on, the answer stored as .txt, tokens used charged. Then
// images, speech and transcription (charged by the measured length), and video jobs (Sora) polled to the end.
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { priceRequest } from '../../src/catalog/pricing.ts';
import { formatUsd } from '../../src/domain/money.ts';
import { type InputServer, mp4Clip, startInputServer, wavTone } from '../helpers/media.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { generateAndWait, postGeneration, waitForEnd } from '../helpers/http.ts';
import { type OpenAIStandIn, reportedTokens, startOpenAIStandIn } from '../stand-ins/openai-compatible.ts';

let upstream: OpenAIStandIn;
let inputs: InputServer;
let inputsUrl: string;
let clip: Buffer;
const png = () =>
  sharp({ create: { width: 32, height: 32, channels: 3, background: '#ff8800' } })
    .png()
    .toBuffer();

const gateway = useGateway(async () => {
  clip = mp4Clip(); // a real H.264 clip, as a video job's content
  upstream = await startOpenAIStandIn({
    png: await png(),
    mp3: Buffer.from('ID3-stand-in-mp3-bytes'.repeat(20)),
    transcript: { text: 'Hello from the recording.', duration: 61.5 },
    mp4: clip,
  });
  // Callers' recordings: 61.5 s, 150 s, one that is 30 s when measured and 150 s when fetched again, and a text.
  const [short, long] = [wavTone(61.5), wavTone(150)];
  const wav = (body: Buffer | ((fetchedBefore: number) => Buffer)) => ({ body, contentType: 'audio/wav' });
  inputs = await startInputServer({
    '/memo.wav': wav(short),
    '/long.wav': wav(long),
    '/changing.wav': wav((fetchedBefore) => (fetchedBefore === 0 ? wavTone(30) : long)),
    '/notes.txt': { body: Buffer.from('not a recording'), contentType: 'text/plain' },
  });
  inputsUrl = inputs.url;
  return {
    providers: {
      openai: { baseUrl: upstream.baseUrl, apiKey: 'sk-upstream-test', timeoutSeconds: 1 },
      pollIntervalMs: 50,
    },
  };
});
afterAll(async () => {
  await upstream?.close();
  await inputs?.close();
});

const developer = useFundedDeveloper(gateway);

const generate = (body: object) => generateAndWait(gateway, { key: developer.key, body: body });
const balance = () => developer.balance();

describe('text-to-text', () => {
  it('folds messages, passes parameters, stores the answer as .txt and charges the tokens used', async () => {
    const before = await balance();
    const task = await generate({
      type: 'text-to-text',
      model: 'openai/qwen3-235b',
      max_tokens: 200,
      temperature: 0.2,
      top_p: 0.9,
      top_k: 40,
      repetition_penalty: 1.1,
      enable_thinking: false,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello!' },
        { role: 'user', content: 'Name a colour.' },
      ],
    });
    expect(task).toMatchObject({
      status: 'completed',
      type: 'text-to-text',
      output: expect.stringMatching(/\/files\/gen_\w+\/output-0\.txt$/),
    });

    const sent = upstream.requests.at(-1)!;
    expect(sent.authorization).toBe('Bearer sk-upstream-test');
    expect(sent.body).toMatchObject({
      model: 'qwen/qwen3-235b-a22b',
      max_tokens: 200,
      temperature: 0.2,
      top_p: 0.9,
      top_k: 40,
      repetition_penalty: 1.1,
      chat_template_kwargs: { enable_thinking: false },
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'User: Hi\n\nAssistant: Hello!\n\nUser: Name a colour.' },
      ],
    });

    const text = await (await fetch(task.output)).text();
    expect(text).toBe('Echo: User: Hi\n\nAssistant: Hello!\n\nUser: Name a colour.');

    // Charged by the usage the server reported, not by the reservation (200 output tokens).
    const promptTokens = reportedTokens.prompt(sent.body.messages);
    const completionTokens = reportedTokens.completion(text);
    const expected = priceRequest(gateway.catalog.get('openai/qwen3-235b')!, {
      usage: { input_tokens: promptTokens, output_tokens: completionTokens },
    }).micros;
    expect(before - (await balance())).toBe(expected);
    expect(task.cost).toBe(Number(formatUsd(expected)));
    // The task says what it counted, as it was charged.
    expect(task.usage).toMatchObject({ input_tokens: promptTokens, output_tokens: completionTokens });
  });

  it.each([
    ['a Chinese', '请用三句话介绍一下长城的历史，并说明它为什么被列为世界文化遗产。'.repeat(40)],
    ['an emoji', '👍🏽🎉👨‍👩‍👧‍👦🇯🇵🧑🏿‍🚀'.repeat(60)],
  ])('%s prompt is charged every token the provider reports: its reservation covers them', async (_script, prompt) => {
    const before = await balance();
    const body = { type: 'text-to-text', model: 'openai/kimi-k2', system_prompt: 'Be brief.', prompt, max_tokens: 1 };
    const created = await postGeneration(gateway, { key: developer.key, body });
    expect(created.status).toBe(202);
    const task = await waitForEnd(gateway, { key: developer.key, pollUrl: created.body.poll_url });
    expect(task.status).toBe('completed');
    const sent = upstream.requests.at(-1)!.body;
    const usage = { input_tokens: reportedTokens.prompt(sent.messages), output_tokens: 1 };
    const used = priceRequest(gateway.catalog.get('openai/kimi-k2')!, { usage }).micros;
    // Nothing of what was used is discarded by the cap at the reservation.
    expect(BigInt(Math.round(created.body.cost * 1e6))).toBeGreaterThanOrEqual(used);
    expect(before - (await balance())).toBe(used);
    expect(task.cost).toBe(Number(formatUsd(used)));
  });

  it('honours 429 Retry-After and 5xx by retrying, then completes', async () => {
    expect(await generate({ type: 'text-to-text', model: 'openai/kimi-k2', prompt: 'busy [[429]]' })).toMatchObject({
      status: 'completed',
    });
    expect(await generate({ type: 'text-to-text', model: 'openai/kimi-k2', prompt: 'flaky [[500]]' })).toMatchObject({
      status: 'completed',
    });
    expect(
      upstream.requests.filter((request) => /\[\[(429|500)\]\]/.test(request.body.messages.at(-1).content)),
    ).toHaveLength(4);
  });

  it('an answer slower than OPENAI_TIMEOUT_SECONDS is abandoned and asked again', async () => {
    expect(
      await generate({ type: 'text-to-text', model: 'openai/kimi-k2', prompt: 'take your time [[slow]]' }),
    ).toMatchObject({ status: 'completed' });
    expect(
      upstream.requests.filter((request) => request.body.messages?.at(-1).content.includes('[[slow]]')),
    ).toHaveLength(2);
  });

  it.each([
    ['a request the provider rejects', '[[400]]', 'The provider rejected the request (HTTP 400).'],
    ['a content-policy refusal', '[[filter]]', 'The provider refused to answer this request (content policy).'],
    ['an answer without choices', '[[no-choices]]', 'The model returned no answer.'],
  ])('%s fails the task with a clear error and refunds it', async (_name, marker, error) => {
    const before = await balance();
    expect(await generate({ type: 'text-to-text', model: 'openai/kimi-k2', prompt: `please ${marker}` })).toMatchObject(
      { status: 'failed', error, cost: 0 },
    );
    expect(await balance()).toBe(before);
  });
});

describe('images, speech and transcription', () => {
  it('text-to-image: n images as PNG files, charged per image', async () => {
    const before = await balance();
    const task = await generate({
      type: 'text-to-image',
      model: 'openai/gpt-image-1',
      prompt: 'a red kite',
      num_outputs: 2,
      resolution: '1536x1024',
    });
    expect(task).toMatchObject({ status: 'completed', cost: 0.126 });
    expect(task.outputs).toHaveLength(2);
    expect(upstream.requests.at(-1)!.body).toMatchObject({
      endpoint: '/v1/images/generations',
      model: 'gpt-image-1',
      prompt: 'a red kite',
      n: 2,
      size: '1536x1024',
    });
    const stored = await sharp(Buffer.from(await (await fetch(task.outputs[1])).arrayBuffer())).metadata();
    expect([stored.format, stored.width]).toEqual(['png', 32]);
    expect(before - (await balance())).toBe(126_000n);
  });

  it('text-to-audio: the speech as MP3', async () => {
    const task = await generate({ type: 'text-to-audio', model: 'openai/tts-1', prompt: 'Good morning.' });
    expect(task).toMatchObject({ status: 'completed', output: expect.stringMatching(/\.mp3$/) });
    expect(upstream.requests.at(-1)!.body).toMatchObject({
      endpoint: '/v1/audio/speech',
      model: 'tts-1',
      input: 'Good morning.',
      voice: 'alloy',
      response_format: 'mp3',
    });
    expect((await (await fetch(task.output)).text()).startsWith('ID3-stand-in')).toBe(true);
  });

  it('speech-to-text: uploads the audio, stores the text, charges the minutes of the recording (not the 10 assumed)', async () => {
    const before = await balance();
    const task = await generate({
      type: 'speech-to-text',
      model: 'openai/whisper-1',
      audio_url: `${inputsUrl}/memo.wav`,
    });
    expect(task).toMatchObject({ status: 'completed', output: expect.stringMatching(/\.txt$/), cost: 0.012 });
    expect(await (await fetch(task.output)).text()).toBe('Hello from the recording.');
    const upload = upstream.requests.at(-1)!.body;
    expect(upload.multipart).toContain('filename="memo.wav"');
    expect(upload.multipart).toContain('whisper-1');
    expect(before - (await balance())).toBe(12_000n); // 61.5 s → 2 minutes × 0.006
  });
});

describe('speech-to-text is priced on the recording it sends, not the duration it declares (issue 16)', () => {
  it('a 150 s recording declared as 1 s reserves and is charged 3 minutes, though the provider reports 61.5 s', async () => {
    const before = await balance();
    const body = { type: 'speech-to-text', model: 'openai/whisper-1', audio_url: `${inputsUrl}/long.wav`, duration: 1 };
    const admitted = await postGeneration(gateway, { key: developer.key, body });
    expect(admitted).toMatchObject({ status: 202, body: { cost: 0.018 } });
    const task = await waitForEnd(gateway, { key: developer.key, pollUrl: admitted.body.poll_url });
    expect(task).toMatchObject({ status: 'completed', cost: 0.018 });
    expect(before - (await balance())).toBe(18_000n);
  });

  it.each([
    ['that cannot be downloaded', '/gone.wav', /audio_url: could not download .*HTTP 404/],
    ['that is not a recording', '/notes.txt', /audio_url: could not be measured: it is not an audio or video file/],
  ])('a recording %s is 400 naming audio_url, and nothing is reserved', async (_name, path, message) => {
    const before = await gateway.database.prisma.balance.findUniqueOrThrow({ where: { accountId: developer.accountId } });
    const body = { type: 'speech-to-text', model: 'openai/whisper-1', audio_url: `${inputsUrl}${path}` };
    const refused = await postGeneration(gateway, { key: developer.key, body });
    expect(refused).toMatchObject({ status: 400, body: { error: 'validation_error', message: expect.stringMatching(message) } });
    expect(await gateway.database.prisma.balance.findUniqueOrThrow({ where: { accountId: developer.accountId } })).toEqual(before);
  }); // prettier-ignore

  it('a recording that grew after it was measured is refused when the worker fetches it: failed, nothing charged', async () => {
    const before = await balance();
    const task = await generate({ type: 'speech-to-text', model: 'openai/whisper-1', audio_url: `${inputsUrl}/changing.wav` });
    expect(task).toMatchObject({
      status: 'failed',
      cost: 0,
      error: 'audio_url changed after the task was admitted: it is now 150 seconds long, and 30 seconds were paid for',
    });
    expect(await balance()).toBe(before);
  }); // prettier-ignore
});

describe('malformed media answers', () => {
  it.each([
    [
      'an image entry without image',
      { type: 'text-to-image', model: 'openai/gpt-image-1', prompt: 'a kite [[no-image]]' },
      'The model returned no image.',
    ],
    [
      'speech that is not audio',
      { type: 'text-to-audio', model: 'openai/tts-1', prompt: 'Hello [[not-audio]]' },
      'The model returned no audio.',
    ],
  ])('%s fails the task with a clear error and refunds it', async (_name, body, error) => {
    const before = await balance();
    expect(await generate(body)).toMatchObject({ status: 'failed', error, cost: 0 });
    expect(await balance()).toBe(before);
  });
});

describe('text-to-video (Sora-style /videos jobs)', () => {
  it('creates the job, polls it to completion, stores the MP4 and charges the seconds', async () => {
    const before = await balance();
    const task = await generate({
      type: 'text-to-video',
      model: 'openai/sora-2',
      prompt: 'waves at dawn',
      duration: 8,
      aspect_ratio: '9:16',
    });
    expect(task).toMatchObject({ status: 'completed', output: expect.stringMatching(/output-0\.mp4$/), cost: 0.8 });
    const job = [...upstream.videos.values()].at(-1)!;
    expect(job.fields).toMatchObject({ model: 'sora-2', prompt: 'waves at dawn', seconds: '8', size: '720x1280' });
    expect(job.retrievals).toBeGreaterThanOrEqual(3);
    expect(Buffer.from(await (await fetch(task.output)).arrayBuffer()).equals(clip)).toBe(true);
    expect(job.deleted).toBe(false); // collected, so not cancelled
    expect(before - (await balance())).toBe(800_000n);
  });

  it('a job the upstream fails ends the task with its reason and a full refund', async () => {
    const before = await balance();
    expect(
      await generate({
        type: 'text-to-video',
        model: 'openai/sora-2',
        prompt: 'forbidden [[video-failed]]',
        duration: 4,
      }),
    ).toMatchObject({
      status: 'failed',
      error: 'The model failed: Your request was blocked by our moderation system.',
      cost: 0,
    });
    expect(await balance()).toBe(before);
  });
});
