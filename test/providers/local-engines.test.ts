// Each local engine on real media made here (a PNG from sharp; a tone and a test-pattern clip from FFmpeg),
// checking what it produced with ffprobe: duration, dimensions, codecs, sample rate.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import type { GenerationRequest } from '../../src/domain/generation-request.ts';
import { fetchInput } from '../../src/providers/fetch-input.ts';
import { ffmpegPath } from '../../src/providers/local/ffmpeg.ts';
import { localEngines } from '../../src/providers/local/index.ts';
import {
  ProviderRefusal,
  type ProducedFile,
  type ProviderContext,
  type ProviderResult,
} from '../../src/providers/types.ts';
import { listenLocally } from '../../harness/local-server.ts';

const ffprobePath: string = createRequire(import.meta.url)('@ffprobe-installer/ffprobe').path;
const catalog = loadCatalog();
const media = new Map<string, Buffer>();
let server: Server;
let baseUrl: string;
let workDir: string;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'gateway-media-'));
  const make = (name: string, args: string[]) => {
    execFileSync(ffmpegPath, ['-hide_banner', '-loglevel', 'error', '-y', ...args, join(workDir, name)]);
    return readFile(join(workDir, name));
  };
  media.set(
    '/photo.png',
    await sharp({ create: { width: 64, height: 48, channels: 3, background: '#2266aa' } })
      .png()
      .toBuffer(),
  );
  media.set(
    '/tone.wav',
    await make('tone.wav', ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=2:sample_rate=48000']),
  );
  media.set(
    '/clip.mp4',
    await make('clip.mp4', [
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=320x240:rate=25',
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=220:duration=2',
      '-t',
      '2',
      '-c:v',
      'libx264',
      '-pix_fmt',
      'yuv420p',
      '-c:a',
      'aac',
    ]),
  );
  media.set('/noise.bin', Buffer.from('this is not a media file at all'.repeat(50)));
  server = createServer((req, res) => {
    const body = media.get(req.url ?? '');
    if (body) res.writeHead(200).end(body);
    else res.writeHead(404).end();
  });
  baseUrl = (await listenLocally(server)).url;
});

afterAll(async () => {
  server?.close();
  await rm(workDir, { recursive: true, force: true });
});

const context: Omit<ProviderContext, 'outputDir'> = {
  fetchInput: (url: string) => fetchInput(url, { maxBytes: 50_000_000, timeoutMs: 10_000, allowPrivate: true }),
  signal: new AbortController().signal,
};

/** A call's own output directory, as the provider activity gives each call. */
const outputDir = () => mkdtemp(join(workDir, 'outputs-'));

/** An output's bytes, whether the engine kept it in memory or wrote it to its output directory. */
const outputBytes = (file: ProducedFile) => (file.path === undefined ? file.data : readFile(file.path));

async function runModel(
  id: string,
  request: Omit<GenerationRequest, 'model'>,
  progress?: ProviderContext['progress'],
): Promise<ProviderResult> {
  const model = catalog.get(id)!;
  return localEngines[model.upstream.model]!({ ...request, model: id } as GenerationRequest, model, {
    ...context,
    outputDir: await outputDir(),
    progress,
  });
}

interface Probe {
  format: { duration: string; format_name: string };
  streams: {
    codec_type: string;
    codec_name: string;
    width?: number;
    height?: number;
    sample_rate?: string;
    channels?: number;
  }[];
}

async function probe(result: ProviderResult): Promise<Probe> {
  expect(result.files).toHaveLength(1);
  const path = join(workDir, `probe-${Math.random().toString(36).slice(2)}.${result.files[0]!.extension}`);
  await writeFile(path, await outputBytes(result.files[0]!));
  return JSON.parse(
    execFileSync(ffprobePath, ['-v', 'error', '-show_format', '-show_streams', '-of', 'json', path], {
      encoding: 'utf8',
    }),
  );
}

const stream = (probed: Probe, type: string) => probed.streams.find((candidate) => candidate.codec_type === type)!;

describe('local engines', () => {
  it('ken-burns: an H.264 clip of the requested length and aspect ratio', async () => {
    const square = await probe(
      await runModel('local/ken-burns', {
        type: 'image-to-video',
        image_url: `${baseUrl}/photo.png`,
        aspect_ratio: '1:1',
        duration: 3,
      }),
    );
    expect(stream(square, 'video')).toMatchObject({ codec_name: 'h264', width: 720, height: 720 });
    expect(Number(square.format.duration)).toBeCloseTo(3, 1);
    const wide = await probe(
      await runModel('local/ken-burns', { type: 'image-to-video', image_url: `${baseUrl}/photo.png`, duration: 3 }),
    );
    expect(stream(wide, 'video')).toMatchObject({ width: 1280, height: 720 });
  }, 60_000);

  it('ken-burns reports its rendering percent as the frames are written: from 0, rising, below 100', async () => {
    const percents: number[] = [];
    await runModel(
      'local/ken-burns',
      // 10 s (250 frames): FFmpeg prints its frame count about twice a second, and a quiet machine renders a 5 s
      // clip in about a second, too quickly for three distinct reports.
      { type: 'image-to-video', image_url: `${baseUrl}/photo.png`, duration: 10 },
      (report) => {
        if (report.stage === 'rendering' && report.percent !== undefined) percents.push(report.percent);
      },
    );
    expect(percents[0]).toBe(0);
    expect(new Set(percents).size).toBeGreaterThanOrEqual(3);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    expect(Math.max(...percents)).toBeLessThanOrEqual(99);
  }, 60_000);

  it('transcode: H.264/AAC at the requested height, aspect ratio kept, length kept', async () => {
    const probed = await probe(
      await runModel('local/transcode', {
        type: 'video-to-video',
        video_url: `${baseUrl}/clip.mp4`,
        resolution: '480p',
      }),
    );
    expect(stream(probed, 'video')).toMatchObject({ codec_name: 'h264', width: 640, height: 480 });
    expect(stream(probed, 'audio')).toMatchObject({ codec_name: 'aac' });
    expect(Number(probed.format.duration)).toBeCloseTo(2, 0);
  }, 60_000);

  it('audio-clean: an MP3 at 44.1 kHz of the same length', async () => {
    const probed = await probe(
      await runModel('local/audio-clean', { type: 'audio-to-audio', audio_url: `${baseUrl}/tone.wav` }),
    );
    expect(stream(probed, 'audio')).toMatchObject({ codec_name: 'mp3', sample_rate: '44100' });
    expect(Number(probed.format.duration)).toBeCloseTo(2, 0);
  });

  it('espeak: spoken WAV audio, longer for longer text', async () => {
    const short = await probe(await runModel('local/espeak', { type: 'text-to-audio', prompt: 'Hello.' }));
    const long = await probe(
      await runModel('local/espeak', {
        type: 'text-to-audio',
        prompt: '--help Hello from the generation gateway, speaking offline on this server.',
      }),
    );
    expect(stream(long, 'audio')).toMatchObject({ codec_name: 'pcm_s16le', sample_rate: '22050', channels: 1 });
    expect(Number(long.format.duration)).toBeGreaterThan(Number(short.format.duration) + 1);
  });

  it('espeak: a long text leaves the main thread free, and an aborted call stops at once', async () => {
    const text = 'The gateway keeps answering while it speaks. '.repeat(444); // ~20,000 characters, the catalog's maximum
    const model = catalog.get('local/espeak')!;
    let longestStall = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      longestStall = Math.max(longestStall, now - last);
      last = now;
    }, 10);
    const started = performance.now();
    const result = await localEngines['espeak-ng']!({ type: 'text-to-audio', model: model.id, prompt: text }, model, {
      ...context,
      outputDir: await outputDir(),
    });
    const took = performance.now() - started;
    clearInterval(ticker);
    expect((await outputBytes(result.files[0]!)).length).toBeGreaterThan(1_000_000);
    // On the main thread this would be one stall as long as the whole synthesis.
    expect(took).toBeGreaterThan(500);
    expect(longestStall).toBeLessThan(took / 3);

    const controller = new AbortController();
    const aborted = localEngines['espeak-ng']!({ type: 'text-to-audio', model: model.id, prompt: text }, model, {
      ...context,
      outputDir: await outputDir(),
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 100);
    const abortedAt = performance.now();
    await expect(aborted).rejects.toThrow('speech synthesis was aborted');
    expect(performance.now() - abortedAt).toBeLessThan(took);
  });

  it.each([
    ['local/transcode', { type: 'video-to-video', video_url: '/noise.bin' }],
    ['local/audio-clean', { type: 'audio-to-audio', audio_url: '/noise.bin' }],
    ['local/ken-burns', { type: 'image-to-video', image_url: '/noise.bin' }],
    ['local/lanczos', { type: 'upscale', image_url: '/noise.bin' }],
  ] as const)('%s refuses input that is not media', async (id, request) => {
    const withUrl = Object.fromEntries(
      Object.entries(request).map(([field, value]) => [field, value.startsWith('/') ? `${baseUrl}${value}` : value]),
    );
    await expect(runModel(id, withUrl as never)).rejects.toBeInstanceOf(ProviderRefusal);
  });
});
