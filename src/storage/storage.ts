// The gateway's stored files, whichever driver holds them: outputs and uploads by key (`<task id>/<file name>`,
// `uploads/…`), and the links the API gives out for them (`/files/<key>`), the same for both drivers.
import { posix } from 'node:path';
import type { ObjectMetadata, ObjectStore, StoredObject } from './object-store.ts';

export interface Storage {
  /** The local driver's directory, which the API serves as static files; null for a bucket, streamed through. */
  root: string | null;
  put(key: string, data: Buffer, metadata?: ObjectMetadata): Promise<string>;
  /** Stores the file at `source` (a received upload) under `key`. */
  putFile(key: string, source: string, metadata?: ObjectMetadata): Promise<string>;
  read(key: string): Promise<Buffer>;
  open(key: string): Promise<StoredObject | null>;
  /** Deletes the objects; missing ones are no error (deleted already). */
  remove(...keys: string[]): Promise<void>;
  /** Deletes everything under each `<folder>/` (a task id: its outputs); an empty or missing folder is no error. */
  removeFolders(...folders: string[]): Promise<void>;
  url(key: string): string;
  /** The key a URL of this storage names, or null for any other URL. */
  keyOf(url: string): string | null;
}

/** The key a link's path names, as stored (`a/../b` names `b`); nothing outside the store, no query or fragment. */
export function linkedKey(path: string): string | null {
  try {
    const key = path.split('/').map(decodeURIComponent).join('/');
    if (/[?#]/.test(key)) return null;
    const normal = posix.normalize(key);
    return normal === '.' || normal === '..' || normal.startsWith('../') || normal.startsWith('/') ? null : normal;
  } catch {
    return null;
  }
}

/** `publicBaseUrl` may be a function, for a server whose address is known only once it listens. */
export function createStorage(
  store: ObjectStore,
  publicBaseUrl: string | (() => string),
  root: string | null = null,
): Storage {
  const base = typeof publicBaseUrl === 'string' ? () => publicBaseUrl : publicBaseUrl;
  const url = (key: string) => `${base()}/files/${key.split('/').map(encodeURIComponent).join('/')}`;
  return {
    root,
    url,
    put: (key, data, metadata) => store.put(key, data, metadata).then(() => url(key)),
    putFile: (key, source, metadata) => store.putFile(key, source, metadata).then(() => url(key)),
    read: (key) => store.read(key),
    open: (key) => store.open(key),
    remove: (...keys) => store.remove(...keys),
    removeFolders: (...folders) => store.removeFolders(...folders),
    keyOf(candidate) {
      const prefix = `${base()}/files/`;
      return candidate.startsWith(prefix) ? linkedKey(candidate.slice(prefix.length)) : null;
    },
  };
}
