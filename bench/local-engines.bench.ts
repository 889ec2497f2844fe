// Part of `npm run bench`: each local engine on a typical input it makes itself (a PNG and a JPEG with sharp, a
// 10 s 720p clip and a 60 s tone with FFmpeg, 500 characters of text), run directly, three times; prints the
// median. Inputs are served over loopback HTTP, as callers' URLs are.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { loadCatalog } from '../src/catalog/catalog.ts';
import { fetchInput } from '../src/providers/fetch-input.ts';
import { ffmpegPath } from '../src/providers/local/ffmpeg.ts';
import { localEngines } from '../src/providers/local/index.ts';
import { listenLocally } from '../harness/local-server.ts';

const dir = mkdtempSync(join(tmpdir(), 'bench-engines-'));
const make = (name: string, args: string[]) => {
  execFileSync(ffmpegPath, ['-hide_banner', '-loglevel', 'error', '-y', ...args, join(dir, name)]);
  return readFileSync(join(dir, name));
};
const media = new Map<string, Buffer>();
media.set(
  '/photo.png',
  await sharp({ create: { width: 512, height: 512, channels: 3, background: '#2266aa' } })
    .png()
    .toBuffer(),
);
media.set(
  '/photo.jpg',
  await sharp({ create: { width: 1024, height: 768, channels: 3, background: '#aa6622' } })
    .jpeg()
    .toBuffer(),
);
media.set(
  '/clip.mp4',
  make('clip.mp4', [
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=1280x720:rate=30',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=220',
    '-t',
    '10',
    '-c:v',
    'libx264',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
  ]),
);
media.set('/voice.wav', make('voice.wav', ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=60:sample_rate=48000']));
const server = createServer((req, res) => {
  const body = media.get(req.url ?? '');
  if (body) res.writeHead(200).end(body);
  else res.writeHead(404).end();
});
const { url: base } = await listenLocally(server);
const catalog = loadCatalog();
const context = {
  fetchInput: (url: string) => fetchInput(url, { maxBytes: 100_000_000, timeoutMs: 30_000, allowPrivate: true }),
  signal: new AbortController().signal,
  outputDir: dir,
};
const cases: [string, string, Record<string, unknown>][] = [
  ['local/lanczos', '512×512 PNG, 4×', { type: 'upscale', image_url: `${base}/photo.png`, resolution: '4x' }],
  [
    'local/ken-burns',
    '1024×768 JPEG → 5 s 16:9',
    { type: 'image-to-video', image_url: `${base}/photo.jpg`, duration: 5, aspect_ratio: '16:9' },
  ],
  [
    'local/transcode',
    '10 s 720p30 clip → 480p',
    { type: 'video-to-video', video_url: `${base}/clip.mp4`, resolution: '480p' },
  ],
  ['local/audio-clean', '60 s WAV', { type: 'audio-to-audio', audio_url: `${base}/voice.wav` }],
  [
    'local/espeak',
    '500 characters',
    { type: 'text-to-audio', prompt: 'The quick brown fox jumps over the lazy dog. '.repeat(11).slice(0, 500) },
  ],
];
console.log('\nLocal engines (median of 3 runs, called directly)\n');
console.log('| model | typical input | time |');
console.log('|---|---|---:|');
for (const [id, label, request] of cases) {
  const model = catalog.get(id)!;
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    await localEngines[model.upstream.model]!({ ...request, model: id } as never, model, context);
    times.push((performance.now() - started) / 1000);
  }
  times.sort((a, b) => a - b);
  console.log(`| ${id} | ${label} | ${times[1]!.toFixed(2)} s |`);
}
server.close();
rmSync(dir, { recursive: true, force: true });
