// Measuring the media inputs a price depends on (issue 16): real files made with FFmpeg, served on a local port,
// downloaded through the input guard and measured with ffprobe and FFmpeg, as admission does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogEntry } from '../../src/catalog/catalog.schema.ts';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import { ModelRequestError } from '../../src/catalog/resolve.ts';
import type { GenerationRequest } from '../../src/domain/generation-request.ts';
import { grownSinceAdmission, measureInputs } from '../../src/generations/measured-inputs.ts';
import { mediaSeconds } from '../../src/providers/media-length.ts';
import { ffmpegOutput, type InputServer, mp4Of, startInputServer, wavTone } from '../helpers/media.ts';

const catalog = loadCatalog();
const whisper = catalog.get('openai/whisper-1')!;
const lipSync = catalog.get('fal/sync-lipsync-2')!;
const options = { maxBytes: 10 * 1024 * 1024, timeoutMs: 10_000, allowPrivate: true };

/** 90 s of MP3 whose Xing header is edited to claim 10 frames (a quarter of a second). */
function mp3UnderstatingItsLength(): Buffer {
  const mp3 = ffmpegOutput('long.mp3', ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=90', '-b:a', '32k']);
  const tag = Math.max(mp3.indexOf('Xing'), mp3.indexOf('Info'));
  const edited = Buffer.from(mp3);
  edited.writeUInt32BE(10, tag + 8); // the frame count, right after the tag and its flags
  return edited;
}

let inputs: InputServer;
const files = {
  '/75s.wav': { body: wavTone(75), contentType: 'audio/wav' },
  '/12s.mp4': { body: mp4Of(12), contentType: 'video/mp4' },
  '/notes.txt': { body: Buffer.from('not a recording'), contentType: 'text/plain' },
};
beforeAll(async () => {
  inputs = await startInputServer(files);
});
afterAll(() => inputs?.close());

const speech = (audio_url: string, extra: Partial<GenerationRequest> = {}): GenerationRequest => ({
  type: 'speech-to-text',
  model: 'openai/whisper-1',
  audio_url,
  ...extra,
});

/** The field problems a refused measurement names. */
async function problemsOf(model: CatalogEntry, request: GenerationRequest) {
  const error = await measureInputs(model, request, options).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ModelRequestError);
  return (error as ModelRequestError).problems;
}

describe('mediaSeconds', () => {
  it('measures audio and video files', async () => {
    expect(await mediaSeconds(files['/75s.wav'].body, Date.now() + 10_000)).toBeCloseTo(75, 1);
    expect(await mediaSeconds(files['/12s.mp4'].body, Date.now() + 10_000)).toBeCloseTo(12, 1);
  });

  it('a header that understates the length does not shorten it: the packets say how long it plays', async () => {
    expect(await mediaSeconds(mp3UnderstatingItsLength(), Date.now() + 10_000)).toBeGreaterThan(89);
  });
});

describe('measureInputs', () => {
  it('measures the input a per-minute model is priced on, whatever duration is declared', async () => {
    expect(await measureInputs(whisper, speech(`${inputs.url}/75s.wav`, { duration: 1 }), options)).toBe(75);
  });

  it('lip-sync: both inputs are measured, the longest counts', async () => {
    const request: GenerationRequest = {
      type: 'lip-sync',
      model: 'fal/sync-lipsync-2',
      video_url: `${inputs.url}/12s.mp4`,
      audio_url: `${inputs.url}/75s.wav`,
    };
    expect(await problemsOf(lipSync, request)).toEqual([
      { field: 'audio_url', message: 'is 75 seconds long; model sync-lipsync-2 takes at most 60 seconds' },
    ]);
    expect(await measureInputs(lipSync, { ...request, audio_url: `${inputs.url}/12s.mp4` }, options)).toBe(12);
  });

  it('a model without measured inputs downloads nothing', async () => {
    const before = inputs.hits.get('/75s.wav') ?? 0;
    const upscale = catalog.get('local/lanczos')!;
    const request: GenerationRequest = { type: 'upscale', model: 'local/lanczos', audio_url: `${inputs.url}/75s.wav` };
    expect(await measureInputs(upscale, request, options)).toBeUndefined();
    expect(inputs.hits.get('/75s.wav') ?? 0).toBe(before);
  });

  it.each([
    ['longer than the model takes', { ...whisper, pricing: { ...whisper.pricing, max_minutes: 1 } } as CatalogEntry, '/75s.wav', /^is 75 seconds long; model whisper-1 takes at most 60 seconds$/],
    ['not there', whisper, '/gone.wav', /could not download .*HTTP 404; it is needed to price the request$/],
    ['not audio or video', whisper, '/notes.txt', /^could not be measured: it is not an audio or video file/],
  ])('an input %s is refused naming its field', async (_name, model, path, message) => {
    const problems = await problemsOf(model, speech(`${inputs.url}${path}`));
    expect(problems).toEqual([{ field: 'audio_url', message: expect.stringMatching(message) }]);
  }); // prettier-ignore

  it('an unreachable input is refused naming its field, within the time allowed', async () => {
    const problems = await problemsOf(whisper, speech('http://127.0.0.1:9/voice.wav'));
    expect(problems).toEqual([{ field: 'audio_url', message: expect.stringMatching(/could not download/) }]);
  });
});

describe('grownSinceAdmission', () => {
  const url = 'https://inputs.example/voice.wav';
  const check = (data: Buffer, inputSeconds: number) =>
    grownSinceAdmission(whisper, speech(url), { url, data, inputSeconds, deadlineMs: Date.now() + 10_000 });

  it('the bytes sent upstream cost no more than the measured length paid for: nothing to say', async () => {
    expect(await check(files['/75s.wav'].body, 75)).toBeNull();
    expect(await check(files['/75s.wav'].body, 100)).toBeNull(); // still 2 minutes
  });

  it('an input that became longer than was paid for is refused, saying so', async () => {
    expect(await check(files['/75s.wav'].body, 30)).toBe(
      'audio_url changed after the task was admitted: it is now 75 seconds long, and 30 seconds were paid for',
    );
  });
});
