// Downloads a caller's input (image_url, audio_url, …) under a size and a time limit, behind the private-network
// guard unless configuration allows private addresses (development, tests).
import { fetch } from 'undici';
import { deadline } from '../net/deadline.ts';
import { outboundDispatcher, PrivateAddressError } from '../net/private-address.ts';

export class InputFetchError extends Error {
  override name = 'InputFetchError';
}

export interface FetchInputOptions {
  maxBytes: number;
  timeoutMs: number;
  allowPrivate: boolean;
  /** Abandons the download (the task was cancelled, or its activity timed out). */
  signal?: AbortSignal;
}

export async function fetchInput(
  url: string,
  options: FetchInputOptions,
): Promise<{ data: Buffer; contentType: string }> {
  const target = new URL(url);
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    throw new InputFetchError(`${url} is not an http(s) URL`);
  const limit = deadline(options.timeoutMs, options.signal);
  try {
    let response;
    try {
      // Redirects could lead anywhere after the check: refuse them.
      response = await fetch(target, {
        redirect: 'manual',
        signal: limit.signal,
        dispatcher: outboundDispatcher(target, options.allowPrivate),
      });
    } catch (error) {
      const cause = error instanceof PrivateAddressError ? error : (error as { cause?: unknown }).cause;
      if (cause instanceof PrivateAddressError)
        throw new InputFetchError(`${cause.message}; set ALLOW_PRIVATE_INPUT_URLS=true to allow it`);
      const reason = options.signal?.aborted ? 'abandoned' : limit.expired() ? 'timed out' : 'connection failed';
      throw new InputFetchError(`could not download ${url}: ${reason}`);
    }
    try {
      if (response.status !== 200) throw new InputFetchError(`could not download ${url}: HTTP ${response.status}`);
      const data = await readLimited(
        response,
        options.maxBytes,
        () => new InputFetchError(`${url} is larger than ${options.maxBytes} bytes`),
      );
      return { data, contentType: response.headers.get('content-type') ?? 'application/octet-stream' };
    } catch (error) {
      // A body left unread (a 404's, one too large) keeps its connection, and the server's slot for it: the next
      // download from that host would wait behind it.
      await response.body?.cancel().catch(() => undefined);
      throw error;
    }
  } finally {
    limit.clear();
  }
}

/** Reads a body, stopping as soon as it exceeds maxBytes (declared or actual) instead of buffering it whole. */
export async function readLimited(
  response: { headers: { get(name: string): string | null }; body: AsyncIterable<Uint8Array> | null },
  maxBytes: number,
  tooLarge: () => Error,
): Promise<Buffer> {
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}
