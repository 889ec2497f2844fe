// A /files/ link names one key, decoded once: what is checked (a delivered output of a completed task) is what is
// served. Paths that would name another object once decoded or normalised — another task's output, a failed task's,
// a private upload — answer the gateway's own 404 on every driver, never the file and never a presigned redirect.
import { request } from 'node:http';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3ObjectStore } from '../../src/storage/s3-object-store.ts';
import { createStorage, linkedKey } from '../../src/storage/storage.ts';
import { createFundedAccount } from '../helpers/accounts.ts';
import { startTestApp, type TestApp, testFilesDir, useAppWithDatabase } from '../helpers/app.ts';
import { useS3Server } from '../helpers/s3-server.ts';
import { createTaskRow } from '../helpers/task-rows.ts';

const s3 = useS3Server('file-keys');
const prefix = 'gw/';
const local = useAppWithDatabase();
const apps: Record<string, () => TestApp> = { local: () => local.app };
const started: TestApp[] = [];

const bytes = Buffer.from('the bytes of a file nobody may read through this link');
const ids = { completed: '', failed: '', processing: '', account: '', upload: 'upl_0123456789abcdef' };

/** The same object written where each driver keeps it: the local directory and the bucket. */
async function storeEverywhere(key: string) {
  await mkdir(join(testFilesDir, key, '..'), { recursive: true });
  await writeFile(join(testFilesDir, key), bytes);
  await new S3Client(s3.client).send(
    new PutObjectCommand({ Bucket: s3.bucket, Key: `${prefix}${key}`, Body: bytes, ContentType: 'image/png' }),
  );
}

beforeAll(async () => {
  const { prisma } = local.database;
  ids.account = await createFundedAccount(prisma);
  ids.completed = await createTaskRow(prisma, ids.account, 'completed');
  ids.failed = await createTaskRow(prisma, ids.account, 'failed');
  ids.processing = await createTaskRow(prisma, ids.account, 'processing');
  await storeEverywhere(`${ids.completed}/output-0.png`);
  await storeEverywhere(`${ids.failed}/output-0.png`);
  await storeEverywhere(`${ids.processing}/output-0.png`);
  await storeEverywhere(`uploads/${ids.account}/${ids.upload}.png`);
  const settings = { bucket: s3.bucket, keyPrefix: prefix, forcePathStyle: true, client: s3.client };
  for (const [name, presignedUrlSeconds] of [
    ['s3', undefined],
    ['s3 presigned', 60],
  ] as const) {
    const storage = createStorage(createS3ObjectStore(settings), 'http://localhost', { presignedUrlSeconds });
    const app = await startTestApp({ database: local.database, storage });
    started.push(app);
    apps[name] = () => app;
  }
});
afterAll(() => Promise.all(started.map((app) => app.close())));

/** GET with the path sent exactly as written: no client normalises its dot segments first. */
function rawGet(base: string, path: string): Promise<{ status: number; location?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method: 'GET', path }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode!, location: res.headers.location, body: Buffer.concat(chunks).toString() }),
      );
    });
    req.on('error', reject).end();
  });
}

// Each of another object's keys, reached from a completed task's folder, in every spelling of a dot segment and of
// a slash within a segment.
const escapes: Record<string, (target: string) => string> = {
  '..%2F': (target) => `..%2F${target.replaceAll('/', '%2F')}`,
  '..%2f': (target) => `..%2f${target.replaceAll('/', '%2f')}`,
  '%2e%2e%2F': (target) => `%2e%2e%2F${target.replaceAll('/', '%2F')}`,
  '%2E%2E/': (target) => `%2E%2E/${target}`,
  '../': (target) => `../${target}`,
  '..%5C': (target) => `..%5C${target.replaceAll('/', '%5C')}`,
  '.%2F..%2F': (target) => `.%2F..%2F${target.replaceAll('/', '%2F')}`,
};
const targets: Record<string, () => string> = {
  "a failed task's output": () => `${ids.failed}/output-0.png`,
  "a processing task's output": () => `${ids.processing}/output-0.png`,
  'a private upload': () => `uploads/${ids.account}/${ids.upload}.png`,
};

describe.each(['local', 's3', 's3 presigned'])('/files/ on the %s driver', (driver) => {
  it("serves a completed task's own output", async () => {
    const response = await fetch(`${apps[driver]!().url}/files/${ids.completed}/output-0.png`);
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer())).toEqual(bytes);
  });

  describe.each(Object.keys(targets))('refuses %s', (target) => {
    it.each(Object.keys(escapes))('reached through %s', async (escape) => {
      const path = `/files/${ids.completed}/${escapes[escape]!(targets[target]!())}`;
      const response = await rawGet(apps[driver]!().url, path);
      expect(response.status).toBe(404);
      expect(response.location).toBeUndefined();
      expect(JSON.parse(response.body)).toMatchObject({ error: 'not_found' });
    });
  });

  it.each([
    ['an empty segment', () => `/files/${ids.completed}//output-0.png`],
    ['a dot segment', () => `/files/${ids.completed}/./output-0.png`],
    ['an encoded dot segment', () => `/files/${ids.completed}/%2E/output-0.png`],
    ['the folder itself', () => `/files/${ids.completed}`],
  ])('refuses %s, though it would name the same file once normalised', async (_, path) => {
    const response = await rawGet(apps[driver]!().url, path());
    expect(response.status).toBe(404);
    expect(response.location).toBeUndefined();
  });
});

describe('linkedKey', () => {
  it('decodes each segment once and refuses whatever would name another place', () => {
    expect(linkedKey('gen_1/output%200.png')).toBe('gen_1/output 0.png');
    expect(linkedKey('gen_1/%252e%252e')).toBe('gen_1/%2e%2e');
    for (const path of ['gen_1/..%2Fx', 'gen_1/a%5Cb', 'gen_1/%2e%2e', 'gen_1/.', '/gen_1/a', 'gen_1/a?b', 'a%00b/c'])
      expect(linkedKey(path), path).toBeNull();
  });
});
