// The storage port's contract, run against both drivers: the local directory and the S3 driver on a real
// S3-compatible server (moto's). Whatever the driver, a key names one object, a retried write replaces it, a
// stream is stored as its bytes, removal is idempotent and batched (whole folders too), and no key reaches outside
// the store; an object's head comes without its bytes, and a range of it reads just those bytes. Only the bucket
// presigns links.
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLocalObjectStore } from '../../src/storage/local-object-store.ts';
import { ObjectNotFoundError, type ObjectStore, StoreUnavailableError } from '../../src/storage/object-store.ts';
import { createS3ObjectStore } from '../../src/storage/s3-object-store.ts';
import { createStorage } from '../../src/storage/storage.ts';
import { freePort } from '../../harness/ports.ts';
import { useS3Server } from '../helpers/s3-server.ts';

const s3 = useS3Server();
const stores: [string, () => Promise<ObjectStore>][] = [
  ['local', async () => createLocalObjectStore(await mkdtemp(join(tmpdir(), 'object-store-')))],
  [
    's3',
    async () =>
      createS3ObjectStore({ bucket: s3.bucket, keyPrefix: 'contract/', forcePathStyle: true, client: s3.client }),
  ],
];

describe.each(stores)('the %s object store', (driver, make) => {
  let store: ObjectStore;
  beforeAll(async () => {
    store = await make();
  });

  it('stores a buffer under its key and reads it back; a second write replaces it', async () => {
    await store.put('gen_a/output-0.png', Buffer.from('first'), { contentType: 'image/png' });
    await store.put('gen_a/output-0.png', Buffer.from('second'), { contentType: 'image/png' });
    expect((await store.read('gen_a/output-0.png')).toString()).toBe('second');
  });

  it('stores a stream of unknown length as its bytes, across several parts', async () => {
    // 12 MiB in 1 MiB chunks: more than one 5 MiB part of a multipart upload.
    const chunk = (index: number) => Buffer.alloc(1 << 20, index);
    await store.put('gen_b/output-0.mp4', Readable.from(Array.from({ length: 12 }, (_, index) => chunk(index))));
    const read = await store.read('gen_b/output-0.mp4');
    expect(read.length).toBe(12 << 20);
    expect(read.subarray(11 << 20, (11 << 20) + 4)).toEqual(Buffer.alloc(4, 11));
  });

  it('stores a received file', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'upload-')), 'received');
    await writeFile(path, 'uploaded bytes');
    await store.putFile('uploads/upl_1.png', path, { contentType: 'image/png' });
    expect((await store.read('uploads/upl_1.png')).toString()).toBe('uploaded bytes');
  });

  it('a missing object is ObjectNotFoundError; removing is idempotent and takes many keys', async () => {
    await expect(store.read('gen_none/output-0.png')).rejects.toBeInstanceOf(ObjectNotFoundError);
    const keys = Array.from({ length: 5 }, (_, index) => `gen_c/output-${index}.png`);
    for (const key of keys) await store.put(key, Buffer.from(key));
    await store.remove(...keys, 'gen_c/never-stored.png');
    await store.remove(...keys);
    for (const key of keys) await expect(store.read(key)).rejects.toBeInstanceOf(ObjectNotFoundError);
  });

  it('answers a check while it is up', async () => {
    await expect(store.check(new AbortController().signal)).resolves.toBeUndefined();
  });

  it('removes whole folders: every object under each, nothing beside them; a missing folder is no error', async () => {
    const kept = ['gen_e2/output-0.png', 'gen_e.png', 'gen_f/output-0.png'];
    const removed = ['gen_e/output-0.png', 'gen_e/output-1.wav', 'gen_e/nested/stray.txt', 'gen_g/output-0.png'];
    for (const key of [...kept, ...removed]) await store.put(key, Buffer.from(key));
    await store.removeFolders('gen_e', 'gen_g', 'gen_never');
    await store.removeFolders('gen_e');
    for (const key of removed) await expect(store.read(key)).rejects.toBeInstanceOf(ObjectNotFoundError);
    for (const key of kept) expect((await store.read(key)).toString()).toBe(key);
  });

  it('refuses a key that would reach outside the store', async () => {
    await expect(store.put('../outside.png', Buffer.from('x'))).rejects.toThrow(/storage (root|key)/);
    await expect(store.removeFolders('..')).rejects.toThrow(/storage (root|key)/);
  });

  it('reads the head of an object without its bytes, and one range of its bytes', async () => {
    const bytes = Buffer.from('0123456789abcdefghij');
    await store.put('gen_e/output-0.mp4', bytes, { contentType: 'video/mp4' });
    expect(await store.head('gen_e/output-0.mp4')).toMatchObject({ contentLength: 20 });
    expect(await store.head('gen_none/output-0.mp4')).toBeNull();
    for (const [start, end] of [
      [5, 9],
      [0, 0],
      [15, 19],
    ] as const) {
      const opened = await store.open('gen_e/output-0.mp4', { range: { start, end } });
      expect(opened?.contentLength).toBe(end - start + 1);
      expect(Buffer.concat(await opened!.body.toArray())).toEqual(bytes.subarray(start, end + 1));
    }
    const whole = await store.open('gen_e/output-0.mp4');
    expect(Buffer.concat(await whole!.body.toArray())).toEqual(bytes);
    expect(await store.open('gen_none/output-0.mp4', { range: { start: 0, end: 1 } })).toBeNull();
  });

  if (driver === 'local')
    it('presigns no links: the api serves local files itself', () => {
      expect(store.presignedUrl).toBeUndefined();
      expect(() => createStorage(store, 'http://gateway.test', { presignedUrlSeconds: 60 })).toThrow(/signs no links/);
    });

  if (driver === 's3') {
    it("gives an object's head its type and the ETag its reads carry", async () => {
      await store.put('gen_g/output-0.mp4', Buffer.from('video'), { contentType: 'video/mp4' });
      const opened = await store.open('gen_g/output-0.mp4');
      opened!.body.destroy();
      expect(await store.head('gen_g/output-0.mp4')).toEqual({
        contentLength: 5,
        contentType: 'video/mp4',
        etag: opened!.etag,
      });
      expect(opened!.etag).toMatch(/^"[0-9a-f]{32}"$/);
    });

    it('presigns a GET link that reads the object straight from the bucket, without credentials', async () => {
      const bytes = Buffer.from('presigned bytes');
      await store.put('gen_f/output 0.mp4', bytes, { contentType: 'video/mp4' });
      const link = new URL(await store.presignedUrl!('gen_f/output 0.mp4', 120));
      expect(link.origin).toBe(s3.endpoint);
      expect(link.pathname).toBe(`/${s3.bucket}/contract/gen_f/output%200.mp4`);
      expect(link.searchParams.get('X-Amz-Expires')).toBe('120');
      expect(link.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
      // Cloudflare R2 refuses a link with the SDK's checksum parameters.
      expect([...link.searchParams.keys()].filter((name) => /checksum/i.test(name))).toEqual([]);
      const download = await fetch(link);
      expect(download.status).toBe(200);
      expect(download.headers.get('content-type')).toBe('video/mp4');
      expect(Buffer.from(await download.arrayBuffer())).toEqual(bytes);
    });

    it('hands out presigned links through Storage only when they are configured, with their lifetime', async () => {
      await store.put('gen_h/output-0.png', Buffer.from('png'), { contentType: 'image/png' });
      expect(await createStorage(store, 'http://gateway.test').presignedUrl('gen_h/output-0.png')).toBeNull();
      const presigned = await createStorage(store, 'http://gateway.test', { presignedUrlSeconds: 45 }).presignedUrl(
        'gen_h/output-0.png',
      );
      expect(presigned?.expiresInSeconds).toBe(45);
      expect(new URL(presigned!.url).searchParams.get('X-Amz-Expires')).toBe('45');
    });
  }

  if (driver === 'local')
    it("removes a folder's directory too, and a partial file a crashed write left in it", async () => {
      const local = store as ReturnType<typeof createLocalObjectStore>;
      await store.put('gen_h/output-0.png', Buffer.from('png'));
      await writeFile(`${local.pathOf('gen_h/output-0.png')}.1234.partial`, 'half');
      await store.removeFolders('gen_h');
      expect(existsSync(local.pathOf('gen_h'))).toBe(false);
    });

  if (driver === 's3')
    it('keeps the objects in the bucket under its key prefix, with their content type', async () => {
      await store.put('gen_d/output-0.png', Buffer.from('png'), { contentType: 'image/png' });
      const client = new S3Client(s3.client);
      const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'contract/gen_d/' }));
      expect(listed.Contents?.map((object) => object.Key)).toEqual(['contract/gen_d/output-0.png']);
      const object = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: 'contract/gen_d/output-0.png' }));
      expect(object.ContentType).toBe('image/png');
    });

  if (driver === 's3')
    it('removes a folder of more objects than one listing page and one delete call take (1,000 each)', async () => {
      const keys = Array.from({ length: 1_005 }, (_, index) => `gen_many/output-${index}.txt`);
      for (let start = 0; start < keys.length; start += 100)
        await Promise.all(keys.slice(start, start + 100).map((key) => store.put(key, Buffer.from('x'))));
      await store.removeFolders('gen_many');
      const client = new S3Client(s3.client);
      const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'contract/gen_many/' }));
      expect(listed.KeyCount).toBe(0);
    }, 120_000);
});

describe('a store that does not answer', () => {
  it('is StoreUnavailableError for the local directory that cannot be made', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'object-store-')), 'a-file');
    await writeFile(file, 'not a directory');
    const store = createLocalObjectStore(join(file, 'files'));
    await expect(store.check(new AbortController().signal)).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('is StoreUnavailableError from every S3 operation when nothing listens at the endpoint', async () => {
    const store = createS3ObjectStore({
      bucket: 'gone',
      keyPrefix: '',
      forcePathStyle: true,
      client: { ...s3.client, endpoint: `http://127.0.0.1:${await freePort()}`, maxAttempts: 1 },
    });
    const path = join(await mkdtemp(join(tmpdir(), 'upload-')), 'received');
    await writeFile(path, 'bytes');
    for (const operation of [
      () => store.check(new AbortController().signal),
      () => store.put('gen_e/output-0.png', Buffer.from('x')),
      () => store.putFile('gen_e/output-1.png', path),
      () => store.read('gen_e/output-0.png'),
      () => store.open('gen_e/output-0.png'),
      () => store.remove('gen_e/output-0.png'),
    ])
      await expect(operation()).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('answers a check when the S3 store refuses it (a missing bucket): it is up, only misconfigured', async () => {
    const store = createS3ObjectStore({
      bucket: 'no-such-bucket',
      keyPrefix: '',
      forcePathStyle: true,
      client: s3.client,
    });
    await expect(store.check(new AbortController().signal)).resolves.toBeUndefined();
  });
});
