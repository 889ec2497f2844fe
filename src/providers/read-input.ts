// A caller's input by URL: one of our own uploads is read from storage (its owner was checked at admission), so the
// private-network guard never stands between the worker and our own host; any other URL is downloaded (fetchInput).
// An upload that is gone is the caller's to know; a store that does not answer is ours (StoreUnavailableError, retried).
import { extname } from 'node:path';
import { uploadMedia } from '../domain/upload-media.ts';
import type { Storage } from '../storage/storage.ts';
import { uploadKeyOf } from '../storage/upload-keys.ts';
import { fetchInput, type FetchInputOptions, InputFetchError, readLimited } from './fetch-input.ts';

export async function readInput(
  url: string,
  options: FetchInputOptions & { storage?: Storage },
): Promise<{ data: Buffer; contentType: string }> {
  const key = options.storage && uploadKeyOf(options.storage, url);
  if (!key) return fetchInput(url, options);
  const object = await options.storage!.open(key);
  if (!object) throw new InputFetchError(`${url} is no longer stored (the upload expired or was deleted)`);
  const length = object.contentLength === undefined ? null : String(object.contentLength);
  try {
    const data = await readLimited(
      { headers: { get: (name) => (name === 'content-length' ? length : null) }, body: object.body },
      options.maxBytes,
      () => new InputFetchError(`${url} is larger than ${options.maxBytes} bytes`),
    );
    return { data, contentType: uploadMedia[extname(key).slice(1)]?.contentType ?? 'application/octet-stream' };
  } finally {
    object.body.destroy();
  }
}
