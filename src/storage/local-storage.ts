// Object storage of the embedded default: a local directory the API serves under /files/. Keys are
// `<task id>/<file name>`, so writing an output twice (an activity retried) overwrites, never duplicates.
import { join, relative, resolve } from 'node:path';
import { createLocalObjectStore } from './local-object-store.ts';

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
  const store = createLocalObjectStore(root);
  const directory = resolve(root);
  const url = (key: string) => `${base()}/files/${key.split('/').map(encodeURIComponent).join('/')}`;
  return {
    root: directory,
    url,
    put: (key, data) => store.put(key, data).then(() => url(key)),
    putFile: (key, source) => store.putFile(key, source).then(() => url(key)),
    read: (key) => store.read(key),
    remove: (key) => store.remove(key),
    keyOf(candidate) {
      const prefix = `${base()}/files/`;
      if (!candidate.startsWith(prefix)) return null;
      try {
        const key = candidate.slice(prefix.length).split('/').map(decodeURIComponent).join('/');
        // The key as stored: `a/../b` names `b`, and nothing outside the root is a key.
        return /[?#]/.test(key) ? null : relative(directory, store.pathOf(key));
      } catch {
        return null;
      }
    },
  };
}

export const filesDirectory = (dataDir: string) => join(dataDir, 'files');
