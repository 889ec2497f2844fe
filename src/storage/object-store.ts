// The storage port: objects by key, in a local directory (the embedded default) or an S3-compatible bucket. The
// gateway's links to them (`/files/…`) and who may read them are decided above this port, the same for both.
import type { Readable } from 'node:stream';
import { ServiceUnavailableError } from '../domain/errors.ts';

export interface ObjectMetadata {
  contentType?: string;
}

/** What serving an object needs to know before its bytes: its size, type and version. */
export interface ObjectHead {
  contentLength: number;
  contentType?: string;
  etag?: string;
}

/** An object opened for reading: its bytes (all, or the range asked for) as a stream, and what serving it needs. */
export interface StoredObject {
  body: Readable;
  /** Of the bytes in `body`: the range's length when a range was asked for. */
  contentLength?: number;
  contentType?: string;
  etag?: string;
}

/** Bytes `start` to `end` of an object, both included, as HTTP counts them; within the object. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface ObjectStore {
  /** Stores `body` under `key`, replacing any object there (a retried activity overwrites, never duplicates). */
  put(key: string, body: Buffer | Readable, metadata?: ObjectMetadata): Promise<void>;
  /** Stores the file at `path` (a received upload) under `key`. */
  putFile(key: string, path: string, metadata?: ObjectMetadata): Promise<void>;
  /** The object's bytes; an ObjectNotFoundError when there is none. */
  read(key: string): Promise<Buffer>;
  /** The object's size, type and version without its bytes, or null when there is none. */
  head(key: string): Promise<ObjectHead | null>;
  /** The object (or only `range` of it) as a stream, or null when there is none. */
  open(key: string, options?: { range?: ByteRange }): Promise<StoredObject | null>;
  /** A link anyone may GET the object by for `seconds`, straight from the store: only stores that sign them (S3). */
  presignedUrl?(key: string, seconds: number): Promise<string>;
  /** Deletes the objects; missing ones are no error (deleted already). */
  remove(...keys: string[]): Promise<void>;
  /** Deletes every object under each `<folder>/` (a task's outputs, stray files included); none there is no error. */
  removeFolders(...folders: string[]): Promise<void>;
  /** Resolves when the store answers at all (even a refusal); a StoreUnavailableError when it does not. */
  check(signal: AbortSignal): Promise<void>;
}

/** The store did not answer (down, unreachable, its 5xx): nothing was stored or charged, and a retry may succeed. */
export class StoreUnavailableError extends ServiceUnavailableError {
  override name = 'StoreUnavailableError';
  constructor(override readonly cause?: unknown) {
    super('The file store is unreachable; nothing was stored or charged. Retry shortly.');
  }
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
