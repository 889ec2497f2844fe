// A task's outputs in a tool result: a `resource_link` per output (its URI, type and size, read from the store) and,
// for the first image, one small inline thumbnail. Links rather than bytes: media in a result would flood the model's
// context, and a host fetches what it shows.
import { basename } from 'node:path';
import type { ContentBlock } from '@modelcontextprotocol/server';
import { lookup } from 'mime-types';
import sharp from 'sharp';
import { answerWithin } from '../../net/deadline.ts';
import type { Storage } from '../../storage/storage.ts';

/** The inline thumbnail's ceiling (bytes of the encoded image, before base64). */
export const maxThumbnailBytes = 64 * 1024;
/** Larger images are linked only: decoding one to make a thumbnail would cost the request too much. */
const maxThumbnailSourceBytes = 8 * 1024 * 1024;
/** A store that does not answer this soon leaves a link without its size or thumbnail, never a failed call. */
const storeLookupMs = 2_000;
/**
 * Thumbnails made, by output key (outputs never change): a client polling a finished task is answered without
 * reading and decoding its image again. At most this many (≈ 85 KB each as base64).
 */
const cachedThumbnails = 32;
const thumbnails = new Map<string, ContentBlock>();
/** Longest side, then a smaller try when the first is still too large. */
const thumbnailSizes = [
  { side: 256, quality: 70 },
  { side: 128, quality: 50 },
];

interface StoredOutput {
  url: string;
  key: string | null;
  contentType?: string;
  size?: number;
}

async function makeThumbnail(storage: Storage, key: string): Promise<ContentBlock | null> {
  const source = await answerWithin(storeLookupMs, () => storage.read(key));
  if (!source) return null;
  for (const { side, quality } of thumbnailSizes) {
    const jpeg = await sharp(source)
      .resize(side, side, { fit: 'inside', withoutEnlargement: true })
      .jpeg({ quality })
      .toBuffer();
    if (jpeg.length <= maxThumbnailBytes)
      return { type: 'image', data: jpeg.toString('base64'), mimeType: 'image/jpeg' };
  }
  return null;
}

async function thumbnail(storage: Storage, output: StoredOutput): Promise<ContentBlock | null> {
  const { key, size } = output;
  if (!key || size === undefined || size > maxThumbnailSourceBytes) return null;
  const cached = thumbnails.get(key);
  if (cached) return cached;
  // A thumbnail is a courtesy: an image sharp cannot read, or a store slow now, leaves the links alone (tried again
  // next time: only thumbnails made are kept).
  const made = await makeThumbnail(storage, key).catch(() => null);
  if (!made) return null;
  if (thumbnails.size >= cachedThumbnails) thumbnails.delete(thumbnails.keys().next().value!);
  thumbnails.set(key, made);
  return made;
}

async function stored(storage: Storage, url: string): Promise<StoredOutput> {
  const key = storage.keyOf(url);
  const head = key ? await answerWithin(storeLookupMs, () => storage.head(key)) : null;
  // A local file has no stored type: /files sends it by its name's extension (express.static's mime-types), as here.
  const contentType = head?.contentType ?? (lookup(url.split(/[?#]/)[0]!) || undefined);
  return { url, key, contentType, size: head?.contentLength };
}

/** The links (and thumbnail) of a task answer's `outputs`; none for an answer without outputs. */
export async function outputContent(storage: Storage, body: unknown): Promise<ContentBlock[]> {
  const urls = (body as { outputs?: unknown } | null)?.outputs;
  if (!Array.isArray(urls) || urls.length === 0) return [];
  const outputs = await Promise.all(urls.map((url) => stored(storage, String(url))));
  const links: ContentBlock[] = outputs.map((output) => ({
    type: 'resource_link',
    uri: output.url,
    name: basename(new URL(output.url).pathname),
    ...(output.contentType ? { mimeType: output.contentType } : {}),
    ...(output.size !== undefined ? { size: output.size } : {}),
  }));
  const image = outputs.find((output) => output.contentType?.startsWith('image/'));
  const preview = image ? await thumbnail(storage, image) : null;
  return preview ? [...links, preview] : links;
}
