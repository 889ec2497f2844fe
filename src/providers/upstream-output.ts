// Copies an upstream's output into our hands at once: providers' URLs expire (Replicate deletes them after an hour).
// An output URL is the upstream's to choose (a result may even echo a caller's URL), so it goes through the same
// private-network guard as a caller's input, and a redirect is refused: it could lead anywhere after the check.
import { join } from 'node:path';
import { fetch } from 'undici';
import { withDeadline } from '../net/deadline.ts';
import { outboundDispatcher, PrivateAddressError } from '../net/private-address.ts';
import { writeLimited } from '../net/limited-file.ts';
import { ProviderRefusal, type ProducedFile } from './types.ts';

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

/** What an upstream's outputs may be: at most INPUT_MAX_BYTES each, at private addresses when allowed. */
export type OutputLimits = Pick<DownloadOptions, 'maxBytes' | 'allowPrivate'>;

/** Where an upstream's outputs go: the call's output directory, and when to stop. */
export type OutputTarget = { outputDir: string; signal?: AbortSignal };

export interface DownloadOptions {
  /** The file the output is written to (in the call's output directory), so it never sits whole in memory. */
  path: string;
  maxBytes: number;
  timeoutMs: number;
  /** ALLOW_PRIVATE_OUTPUT_URLS: an upstream (or a stand-in) on this machine or network. */
  allowPrivate: boolean;
  signal?: AbortSignal;
}

// Permanent: the same URL would be refused again. The caller reads why; the setting is the operator's (README).
const refused = (why: string) => new ProviderRefusal(`The model's output was refused: ${why}.`);

async function downloadBody(target: URL, signal: AbortSignal, options: DownloadOptions) {
  let response;
  try {
    response = await fetch(target, {
      redirect: 'manual',
      signal,
      dispatcher: outboundDispatcher(target, options.allowPrivate),
    });
  } catch (error) {
    const cause = error instanceof PrivateAddressError ? error : (error as { cause?: unknown }).cause;
    if (cause instanceof PrivateAddressError) throw refused(cause.message);
    throw error; // a network failure or a timeout: transient, the activity retries
  }
  // A body left unread keeps its connection (and a one-connection host's only slot) until it is garbage-collected.
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    throw refused(`its URL answered a redirect (HTTP ${response.status})`);
  }
  // A failed download is transient: the output exists upstream for a while, and the activity retries.
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`output download answered HTTP ${response.status}`);
  }
  const tooLarge = () => new Error(`output larger than ${options.maxBytes} bytes`);
  if (Number(response.headers.get('content-length') ?? 0) > options.maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  await writeLimited(response.body ?? [], options.path, options.maxBytes, tooLarge);
  return { contentType: response.headers.get('content-type') ?? 'application/octet-stream' };
}

export async function downloadOutput(url: string, options: DownloadOptions): Promise<ProducedFile> {
  const target = new URL(url);
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw refused('its URL is not http(s)');
  const downloaded = await withDeadline(options.timeoutMs, [options.signal], (signal) =>
    downloadBody(target, signal, options),
  );
  const { path } = options;
  const contentType = downloaded.contentType.split(';')[0]!.trim();
  // Only known types keep their extension: an upstream's HTML or SVG must not be served from /files as a page.
  const extension = extensionsByType[contentType];
  return extension
    ? { path, contentType, extension }
    : { path, contentType: 'application/octet-stream', extension: 'bin' };
}

/** All of a job's outputs, into the call's output directory, each download bounded by a minute. */
export function downloadOutputs(urls: string[], options: OutputLimits & OutputTarget): Promise<ProducedFile[]> {
  const { outputDir, ...rest } = options;
  return Promise.all(
    urls.map((url, index) =>
      downloadOutput(url, { ...rest, path: join(outputDir, `download-${index}`), timeoutMs: 60_000 }),
    ),
  );
}
