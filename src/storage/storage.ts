// The gateway's stored files, whichever driver holds them: outputs and uploads by key (`<task id>/<file name>`,
// `uploads/…`), and the links the API gives out for them (`/files/<key>`), the same for both drivers.
import type { ByteRange, ObjectHead, ObjectMetadata, ObjectStore, StoredObject } from './object-store.ts';
import { storeAvailability } from './store-availability.ts';
import { loopbackAliases } from '../net/loopback.ts';

/** A link straight to an object in the store, and how long it lasts. */
export interface PresignedUrl {
  url: string;
  expiresInSeconds: number;
}

export interface Storage {
  /** The local driver's directory, which the API serves as static files; null for a bucket, streamed through. */
  root: string | null;
  put(key: string, data: Buffer, metadata?: ObjectMetadata): Promise<string>;
  /** Stores the file at `source` (a received upload) under `key`. */
  putFile(key: string, source: string, metadata?: ObjectMetadata): Promise<string>;
  read(key: string): Promise<Buffer>;
  head(key: string): Promise<ObjectHead | null>;
  open(key: string, options?: { range?: ByteRange }): Promise<StoredObject | null>;
  /** With STORAGE_PRESIGNED_URLS, where the api sends a reader of `key` instead of streaming it; null otherwise. */
  presignedUrl(key: string): Promise<PresignedUrl | null>;
  /** Deletes the objects; missing ones are no error (deleted already). */
  remove(...keys: string[]): Promise<void>;
  /** Whether the store answers (probed at most every few seconds): work that needs it is refused while it does not. */
  available(): Promise<boolean>;
  /** Deletes everything under each `<folder>/` (a task id: its outputs); an empty or missing folder is no error. */
  removeFolders(...folders: string[]): Promise<void>;
  url(key: string): string;
  /** The key a URL of this storage names, or null for any other URL. */
  keyOf(url: string): string | null;
}

/**
 * The key a link's path names, decoded once and taken as it is: every segment a plain name. A path that would name
 * another place once normalised (an empty, `.` or `..` segment, an encoded slash or backslash), a query or fragment,
 * or a malformed encoding names no key: null. Whoever checks who may read a key hands the same key to the store.
 */
export function linkedKey(path: string): string | null {
  try {
    const segments = path.split('/').map(decodeURIComponent);
    return segments.every(isPlainSegment) ? segments.join('/') : null;
  } catch {
    return null;
  }
}

const isPlainSegment = (segment: string) =>
  segment !== '' && segment !== '.' && segment !== '..' && !/[/\\?#\0]/.test(segment);

export interface StorageOptions {
  /** The local driver's directory. */
  root?: string;
  /** Hand out presigned links lasting this long instead of streaming objects (a store that signs them). */
  presignedUrlSeconds?: number;
}

/** `publicBaseUrl` may be a function, for a server whose address is known only once it listens. */
export function createStorage(
  store: ObjectStore,
  publicBaseUrl: string | (() => string),
  { root, presignedUrlSeconds }: StorageOptions = {},
): Storage {
  const base = typeof publicBaseUrl === 'string' ? () => publicBaseUrl : publicBaseUrl;
  if (presignedUrlSeconds !== undefined && !store.presignedUrl) throw new Error('this object store signs no links');
  const url = (key: string) => `${base()}/files/${key.split('/').map(encodeURIComponent).join('/')}`;
  return {
    root: root ?? null,
    url,
    put: (key, data, metadata) => store.put(key, data, metadata).then(() => url(key)),
    putFile: (key, source, metadata) => store.putFile(key, source, metadata).then(() => url(key)),
    read: (key) => store.read(key),
    head: (key) => store.head(key),
    open: (key, options) => store.open(key, options),
    async presignedUrl(key) {
      if (presignedUrlSeconds === undefined || !store.presignedUrl) return null;
      return { url: await store.presignedUrl(key, presignedUrlSeconds), expiresInSeconds: presignedUrlSeconds };
    },
    remove: (...keys) => store.remove(...keys),
    available: storeAvailability(store),
    removeFolders: (...folders) => store.removeFolders(...folders),
    // A loopback base is ours under each loopback name: a link answered at 127.0.0.1 names the same file.
    keyOf(candidate) {
      const prefix = loopbackAliases(base())
        .map((alias) => `${alias}/files/`)
        .find((own) => candidate.startsWith(own));
      return prefix ? linkedKey(candidate.slice(prefix.length)) : null;
    },
  };
}
