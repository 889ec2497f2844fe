// Object storage of the embedded default: a local directory the API serves under /files/. Keys are
// `<task id>/<file name>`, so writing an output twice (an activity retried) overwrites, never duplicates.
import { copyFile, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';

export interface Storage {
  /** Where the API serves files from. */
  root: string;
  put(key: string, data: Buffer): Promise<string>;
  /** Stores the file at `source` (a received upload) under `key`. */
  putFile(key: string, source: string): Promise<string>;
  read(key: string): Promise<Buffer>;
  /** Deletes the file; a missing one is no error (deleted already). */
  remove(key: string): Promise<void>;
  url(key: string): string;
  /** The key a URL of this storage names, or null for any other URL. */
  keyOf(url: string): string | null;
}

/** `publicBaseUrl` may be a function, for a server whose address is known only once it listens. */
export function createLocalStorage(root: string, publicBaseUrl: string | (() => string)): Storage {
  const base = typeof publicBaseUrl === 'string' ? () => publicBaseUrl : publicBaseUrl;
  const directory = resolve(root);
  const pathOf = (key: string) => {
    const path = resolve(directory, key);
    if (!path.startsWith(`${directory}/`)) throw new Error(`storage key escapes the storage root: ${key}`);
    return path;
  };
  const url = (key: string) => `${base()}/files/${key.split('/').map(encodeURIComponent).join('/')}`;
  // Write then rename: a reader never sees half a file.
  const placed = async (key: string, write: (partial: string) => Promise<void>) => {
    const path = pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    const partial = `${path}.${process.pid}.partial`;
    await write(partial);
    await rename(partial, path);
    return url(key);
  };
  return {
    root: directory,
    url,
    put: (key, data) => placed(key, (partial) => writeFile(partial, data)),
    putFile: (key, source) => placed(key, (partial) => copyFile(source, partial)),
    read: (key) => readFile(pathOf(key)),
    remove: (key) => rm(pathOf(key), { force: true }),
    keyOf(candidate) {
      const prefix = `${base()}/files/`;
      if (!candidate.startsWith(prefix)) return null;
      try {
        const key = candidate.slice(prefix.length).split('/').map(decodeURIComponent).join('/');
        // The key as stored: `a/../b` names `b`, and nothing outside the root is a key.
        return /[?#]/.test(key) ? null : relative(directory, pathOf(key));
      } catch {
        return null;
      }
    },
  };
}

export const filesDirectory = (dataDir: string) => join(dataDir, 'files');
