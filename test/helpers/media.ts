// Real media files for tests, made on the spot: a PNG with sharp; video and audio with the FFmpeg the local
// engines use; a minimal binary glTF (a JSON chunk describing an empty scene, as a 3D model's container).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { ffmpegPath } from '../../src/providers/local/ffmpeg.ts';
import { listenLocally } from '../../harness/local-server.ts';

/** Runs FFmpeg with `args` writing `name`, and returns the file's bytes. */
export function ffmpegOutput(name: string, args: string[]): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-media-'));
  try {
    execFileSync(ffmpegPath, ['-hide_banner', '-loglevel', 'error', '-y', ...args, join(dir, name)]);
    return readFileSync(join(dir, name));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const pngImage = (width = 24, height = 16, background = '#663399') =>
  sharp({ create: { width, height, channels: 3, background } })
    .png()
    .toBuffer();

/** One second of H.264 test pattern. */
export const mp4Clip = () =>
  ffmpegOutput('clip.mp4', ['-f', 'lavfi', '-i', 'testsrc=size=128x72:rate=10:duration=1', '-pix_fmt', 'yuv420p']);

/** One second of a 440 Hz tone as MP3. */
export const mp3Tone = () => ffmpegOutput('tone.mp3', ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1']);

/** `seconds` of a tone as 8 kHz mono WAV (16 KB a second): a caller's recording of a known length. */
export const wavTone = (seconds: number) =>
  ffmpegOutput('tone.wav', ['-f', 'lavfi', '-i', `sine=frequency=300:sample_rate=8000:duration=${seconds}`]);

/** `seconds` of H.264 test pattern (tiny frames, 5 per second). */
export const mp4Of = (seconds: number) =>
  ffmpegOutput('clip.mp4', [
    '-f',
    'lavfi',
    '-i',
    `testsrc=size=64x48:rate=5:duration=${seconds}`,
    '-pix_fmt',
    'yuv420p',
  ]);

export interface InputServer {
  url: string;
  /** How many times each path was fetched. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

/**
 * Serves callers' inputs on a local port: each path's bytes, or a function of how many times it was fetched before
 * (a URL that serves another file later). Any other path is 404.
 */
export async function startInputServer(
  files: Record<string, { body: Buffer | ((fetchedBefore: number) => Buffer); contentType: string }>,
): Promise<InputServer> {
  const hits = new Map<string, number>();
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://inputs').pathname;
    const file = files[path];
    if (!file) return void res.writeHead(404).end();
    const before = hits.get(path) ?? 0;
    hits.set(path, before + 1);
    res
      .writeHead(200, { 'content-type': file.contentType })
      .end(typeof file.body === 'function' ? file.body(before) : file.body);
  });
  const { url } = await listenLocally(server);
  return {
    url,
    hits,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A valid glTF 2.0 binary container holding an empty scene. */
export function glbModel(): Buffer {
  const text = JSON.stringify({
    asset: { version: '2.0', generator: 'gateway tests' },
    scenes: [{ nodes: [] }],
    scene: 0,
  });
  const json = Buffer.from(text.padEnd(Math.ceil(text.length / 4) * 4, ' ')); // chunks are 4-byte aligned
  const header = Buffer.alloc(12);
  header.write('glTF', 0, 'ascii');
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(12 + 8 + json.length, 8);
  const chunk = Buffer.alloc(8);
  chunk.writeUInt32LE(json.length, 0);
  chunk.write('JSON', 4, 'ascii');
  return Buffer.concat([header, chunk, json]);
}

/** A glTF 2.0 binary holding one triangle: what a 3D viewer needs to show something (an empty scene it refuses). */
export function glbTriangle(): Buffer {
  const positions = Buffer.from(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]).buffer);
  const gltf = {
    asset: { version: '2.0', generator: 'gateway tests' },
    buffers: [{ byteLength: positions.length }],
    bufferViews: [{ buffer: 0, byteOffset: 0, byteLength: positions.length }],
    accessors: [{ bufferView: 0, componentType: 5126, count: 3, type: 'VEC3', min: [0, 0, 0], max: [1, 1, 0] }],
    materials: [{ pbrMetallicRoughness: { baseColorFactor: [0.2, 0.4, 0.8, 1] }, doubleSided: true }],
    meshes: [{ primitives: [{ attributes: { POSITION: 0 }, material: 0 }] }],
    nodes: [{ mesh: 0 }],
    scenes: [{ nodes: [0] }],
    scene: 0,
  };
  const text = JSON.stringify(gltf);
  const json = Buffer.from(text.padEnd(Math.ceil(text.length / 4) * 4, ' '));
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32LE(data.length, 0);
    head.write(type, 4, 'ascii');
    return Buffer.concat([head, data]);
  };
  const body = Buffer.concat([chunk('JSON', json), chunk('BIN\0', positions)]);
  const header = Buffer.alloc(12);
  header.write('glTF', 0, 'ascii');
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(12 + body.length, 8);
  return Buffer.concat([header, body]);
}

/** What each kind of output is served as, by the stand-ins. */
export interface OutputMedia {
  image: Buffer;
  video: Buffer;
  audio: Buffer;
  model: Buffer;
}

export async function outputMedia(image?: Buffer): Promise<OutputMedia> {
  return { image: image ?? (await pngImage()), video: mp4Clip(), audio: mp3Tone(), model: glbModel() };
}

/** The kind of output a catalog model makes, from its first output modality. */
export function outputKind(modalities: readonly string[]): keyof OutputMedia {
  const first = modalities[0];
  return first === 'video' ? 'video' : first === 'audio' ? 'audio' : first === '3d' ? 'model' : 'image';
}

/** Serves `/files/<name>.<extension>` from `media` with its content type; false when the path is not a file. */
export function serveMediaFile(path: string, media: OutputMedia, res: ServerResponse): boolean {
  const extension = /^\/files\/[\w.-]+\.(\w+)$/.exec(path)?.[1];
  const kind = (Object.keys(mediaTypes) as (keyof OutputMedia)[]).find(
    (candidate) => mediaTypes[candidate].extension === extension,
  );
  if (!kind) return false;
  res.writeHead(200, { 'content-type': mediaTypes[kind].contentType }).end(media[kind]);
  return true;
}

export const mediaTypes: Record<keyof OutputMedia, { contentType: string; extension: string }> = {
  image: { contentType: 'image/png', extension: 'png' },
  video: { contentType: 'video/mp4', extension: 'mp4' },
  audio: { contentType: 'audio/mpeg', extension: 'mp3' },
  model: { contentType: 'model/gltf-binary', extension: 'glb' },
};
