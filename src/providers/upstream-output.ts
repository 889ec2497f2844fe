// Copies an upstream's output into our hands at once: providers' URLs expire (Replicate deletes them after an hour).
import { extname } from 'node:path';
import type { ProducedFile } from './types.ts';

const extensionsByType: Record<string, string> = {
  'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'video/mp4': 'mp4', 'audio/mpeg': 'mp3', 'audio/wav': 'wav',
  'model/gltf-binary': 'glb', 'text/plain': 'txt',
};

export async function downloadOutput(url: string, options: { maxBytes: number; timeoutMs: number; signal?: AbortSignal }): Promise<ProducedFile> {
  const signal = options.signal ? AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]) : AbortSignal.timeout(options.timeoutMs);
  const response = await fetch(url, { signal });
  // A failed download is transient: the output exists upstream for a while, and the activity retries.
  if (!response.ok) throw new Error(`output download answered HTTP ${response.status}`);
  const data = Buffer.from(await response.arrayBuffer());
  if (data.length > options.maxBytes) throw new Error(`output larger than ${options.maxBytes} bytes`);
  const contentType = (response.headers.get('content-type') ?? 'application/octet-stream').split(';')[0]!.trim();
  const fromPath = extname(new URL(url).pathname).slice(1).toLowerCase();
  return { data, contentType, extension: extensionsByType[contentType] ?? (fromPath || 'bin') };
}
