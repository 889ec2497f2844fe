// The storage port: objects by key, in a local directory (the embedded default) or an S3-compatible bucket. The
// gateway's links to them (`/files/…`) and who may read them are decided above this port, the same for both.
import type { Readable } from 'node:stream';

export interface ObjectMetadata {
  contentType?: string;
}

/** An object opened for reading: its bytes as a stream, and what serving it needs. */
export interface StoredObject {
  body: Readable;
  contentLength?: number;
  contentType?: string;
  etag?: string;
}

export interface ObjectStore {
  /** Stores `body` under `key`, replacing any object there (a retried activity overwrites, never duplicates). */
  put(key: string, body: Buffer | Readable, metadata?: ObjectMetadata): Promise<void>;
  /** Stores the file at `path` (a received upload) under `key`. */
  putFile(key: string, path: string, metadata?: ObjectMetadata): Promise<void>;
  /** The object's bytes; an ObjectNotFoundError when there is none. */
  read(key: string): Promise<Buffer>;
  /** The object as a stream, or null when there is none. */
  open(key: string): Promise<StoredObject | null>;
  /** Deletes the objects; missing ones are no error (deleted already). */
  remove(...keys: string[]): Promise<void>;
  /** Deletes every object under each `<folder>/` (a task's outputs, stray files included); none there is no error. */
  removeFolders(...folders: string[]): Promise<void>;
}

export class ObjectNotFoundError extends Error {
  override name = 'ObjectNotFoundError';
  constructor(readonly key: string) {
    super(`no object ${key}`);
  }
}

/** Keys are relative paths of plain segments: nothing may name a place outside the store (`..`, absolute, empty). */
export function checkedKey(key: string): string {
  const segments = key.split('/');
  if (key.length === 0 || segments.some((segment) => segment === '' || segment === '.' || segment === '..'))
    throw new Error(`not a storage key: ${key}`);
  return key;
}
