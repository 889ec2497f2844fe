// A caller's input by URL: one of our own uploads is read from storage (its owner was checked at admission), so the
// private-network guard never stands between the worker and our own host; any other URL is downloaded (fetchInput).
import { extname } from 'node:path';
import { uploadMedia } from '../domain/upload-media.ts';
import type { Storage } from '../storage/storage.ts';
import { uploadKeyOf } from '../storage/upload-keys.ts';
import { fetchInput, type FetchInputOptions, InputFetchError } from './fetch-input.ts';

export async function readInput(
  url: string,
  options: FetchInputOptions & { storage?: Storage },
): Promise<{ data: Buffer; contentType: string }> {
  const key = options.storage && uploadKeyOf(options.storage, url);
  if (!key) return fetchInput(url, options);
  try {
    const data = await options.storage!.read(key);
    return { data, contentType: uploadMedia[extname(key).slice(1)]?.contentType ?? 'application/octet-stream' };
  } catch {
    throw new InputFetchError(`${url} is no longer stored (the upload expired or was deleted)`);
  }
}
