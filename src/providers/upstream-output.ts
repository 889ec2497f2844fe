// Copies an upstream's output into our hands at once: providers' URLs expire (Replicate deletes them after an hour).
import { readLimited } from './fetch-input.ts';
import type { ProducedFile } from './types.ts';

const extensionsByType: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'video/mp4': 'mp4',
  'audio/mpeg': 'mp3',
  'audio/wav': 'wav',
  'model/gltf-binary': 'glb',
  'text/plain': 'txt',
};

export async function downloadOutput(
  url: string,
  options: { maxBytes: number; timeoutMs: number; signal?: AbortSignal },
): Promise<ProducedFile> {
  const signal = options.signal
    ? AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)])
    : AbortSignal.timeout(options.timeoutMs);
  const response = await fetch(url, { signal });
  // A failed download is transient: the output exists upstream for a while, and the activity retries.
  if (!response.ok) throw new Error(`output download answered HTTP ${response.status}`);
  const data = await readLimited(
    response as never,
    options.maxBytes,
    () => new Error(`output larger than ${options.maxBytes} bytes`),
  );
  const contentType = (response.headers.get('content-type') ?? 'application/octet-stream').split(';')[0]!.trim();
  // Only known types keep their extension: an upstream's HTML or SVG must not be served from /files as a page.
  const extension = extensionsByType[contentType];
  return extension
    ? { data, contentType, extension }
    : { data, contentType: 'application/octet-stream', extension: 'bin' };
}

/** All of a job's outputs, each download bounded by a minute. */
export function downloadOutputs(
  urls: string[],
  options: { maxBytes: number; signal?: AbortSignal },
): Promise<ProducedFile[]> {
  return Promise.all(urls.map((url) => downloadOutput(url, { ...options, timeoutMs: 60_000 })));
}
