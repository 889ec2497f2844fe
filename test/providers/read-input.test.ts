// Inputs that are our own uploads are read from storage, past the private-network guard that would refuse our own
// (loopback) host; other URLs of the storage (outputs) and foreign URLs are still downloaded behind the guard.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputFetchError } from '../../src/providers/fetch-input.ts';
import { readInput } from '../../src/providers/read-input.ts';
import { createLocalStorage } from '../../src/storage/local-storage.ts';
import { StoreUnavailableError } from '../../src/storage/object-store.ts';
import { createS3ObjectStore } from '../../src/storage/s3-object-store.ts';
import { createStorage } from '../../src/storage/storage.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { freePort } from '../../harness/ports.ts';
import { uploadKey, uploadKeyOf } from '../../src/storage/upload-keys.ts';

const base = 'http://127.0.0.1:9';
let root: string;
let storage: Storage;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'read-input-'));
  storage = createLocalStorage(root, base);
});
afterAll(() => rm(root, { recursive: true, force: true }));

const guarded = { maxBytes: 1024, timeoutMs: 1_000, allowPrivate: false };

describe('readInput', () => {
  it('reads an upload from storage, with the type of its extension, though its host is private', async () => {
    const url = await storage.put(uploadKey('dev_a', 'upl_1', 'wav'), Buffer.from('RIFF....WAVE'));
    expect(url).toBe(`${base}/files/uploads/dev_a/upl_1.wav`);
    expect(await readInput(url, { ...guarded, storage })).toEqual({
      data: Buffer.from('RIFF....WAVE'),
      contentType: 'audio/wav',
    });
  });

  it('refuses an upload whose file is gone, saying so', async () => {
    const url = `${base}/files/uploads/dev_a/upl_gone.png`;
    await expect(readInput(url, { ...guarded, storage })).rejects.toEqual(
      new InputFetchError(`${url} is no longer stored (the upload expired or was deleted)`),
    );
  });

  it('refuses an upload larger than the input limit without reading past it', async () => {
    const url = await storage.put(uploadKey('dev_a', 'upl_big', 'wav'), Buffer.alloc(2048, 1));
    await expect(readInput(url, { ...guarded, storage })).rejects.toEqual(
      new InputFetchError(`${url} is larger than 1024 bytes`),
    );
  });

  it("a store that does not answer is ours, not the caller's: StoreUnavailableError, which the activity retries", async () => {
    const endpoint = `http://127.0.0.1:${await freePort()}`;
    const client = {
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
      maxAttempts: 1,
    };
    const down = createStorage(createS3ObjectStore({ bucket: 'b', keyPrefix: '', forcePathStyle: true, client }), base);
    const url = down.url(uploadKey('dev_a', 'upl_2', 'png'));
    await expect(readInput(url, { ...guarded, storage: down })).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('downloads anything else behind the guard: an output of the storage, or an upload URL without storage', async () => {
    for (const [url, options] of [
      [`${base}/files/gen_x/output-0.png`, { ...guarded, storage }],
      [`${base}/files/uploads/dev_a/upl_1.wav`, guarded],
    ] as const) {
      await expect(readInput(url, options)).rejects.toThrow(/ALLOW_PRIVATE_INPUT_URLS=true/);
    }
  });
});

describe('uploadKeyOf', () => {
  it.each([
    [`${base}/files/uploads/dev_a/upl_1.wav`, 'uploads/dev_a/upl_1.wav'],
    [`${base}/files/gen_x/output-0.png`, null],
    ['http://elsewhere.example/files/uploads/dev_a/upl_1.wav', null],
    [`${base}/files/uploads/..%2F..%2Fetc/passwd`, null],
    [`${base}/files/uploads/..%2Fgen_x/output-0.png`, null],
    // A dot segment names no key at all, not the key it would normalise to.
    [`${base}/files/uploads/dev_a/..%2Fdev_b/upl_2.png`, null],
    [`${base}/files/uploads/dev_a/upl_1.wav?x=1`, null],
  ])('%s → %s', (url, key) => {
    expect(uploadKeyOf(storage, url)).toBe(key);
  });
});
