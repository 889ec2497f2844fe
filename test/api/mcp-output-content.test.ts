// A task's outputs in an MCP tool result, on the real local store: each output a resource_link with its type and
// size, the first image one thumbnail within 64 KB; an output gone from the store (swept, or not yet visible) is still
// linked, without a size or thumbnail, and never fails the call.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxThumbnailBytes, outputContent } from '../../src/api/mcp/output-content.ts';
import { createLocalStorage } from '../../src/storage/local-storage.ts';
import type { Storage } from '../../src/storage/storage.ts';

let root: string;
let storage: Storage;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'mcp-outputs-'));
  storage = createLocalStorage(root, 'http://127.0.0.1:3000');
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('outputContent', () => {
  it('links each output with its type and size, and thumbnails the first image within 64 KB', async () => {
    // Noise compresses badly: a 1024 px JPEG of it is far above 64 KB, so the thumbnail must be scaled down.
    const raw = Buffer.alloc(1024 * 1024 * 3).map(() => Math.floor(Math.random() * 256));
    const png = await sharp(raw, { raw: { width: 1024, height: 1024, channels: 3 } })
      .png()
      .toBuffer();
    const image = await storage.put('gen_a/output-0.png', png);
    const audio = await storage.put('gen_a/output-1.wav', Buffer.from('RIFF....WAVE'));
    const content = await outputContent(storage, { id: 'gen_a', outputs: [image, audio] });
    expect(content.slice(0, 2)).toEqual([
      { type: 'resource_link', uri: image, name: 'output-0.png', mimeType: 'image/png', size: png.length },
      { type: 'resource_link', uri: audio, name: 'output-1.wav', mimeType: 'audio/wav', size: 12 },
    ]);
    const thumbnail = content[2] as { type: string; data: string; mimeType: string };
    expect(thumbnail).toMatchObject({ type: 'image', mimeType: 'image/jpeg' });
    expect(Buffer.from(thumbnail.data, 'base64').length).toBeLessThanOrEqual(maxThumbnailBytes);
  });

  it('still links an output the store no longer has, without size or thumbnail', async () => {
    const url = storage.url('gen_b/output-0.png');
    expect(await outputContent(storage, { outputs: [url] })).toEqual([
      { type: 'resource_link', uri: url, name: 'output-0.png', mimeType: 'image/png' },
    ]);
    expect(await outputContent(storage, { id: 'gen_c', status: 'queued' })).toEqual([]);
  });
});
