// STORAGE_DRIVER=s3 through the real stack, on an S3-compatible server nobody on this project wrote (moto's): the
// AWS SDK finds it through its own settings (AWS_ENDPOINT_URL_S3, credentials, region). Every local model completes
// with a downloadable output; outputs and uploads are objects in the bucket; nothing is written under DATA_DIR/files;
// the upload and output expiry sweeps delete expired objects. A link streams its object through with ranges and
// ETags, as express.static serves local files, so a video player can seek.
import { existsSync } from 'node:fs';
import { ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { storedFileContentSecurityPolicy } from '../../src/api/middleware/stored-files.ts';
import { deleteExpiredUploads } from '../../src/uploads/uploads.ts';
import { deleteExpiredOutputs } from '../../src/generations/expired-outputs.ts';
import { configuredStorage } from '../../src/storage/configured-storage.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { startGeneration, waitForEnd } from '../helpers/http.ts';
import { mp4Clip, pngImage, wavTone } from '../helpers/media.ts';
import { usePngInputServer } from '../helpers/png-input-server.ts';
import { useS3Server } from '../helpers/s3-server.ts';
import { createTaskRow } from '../helpers/task-rows.ts';

const s3 = useS3Server('gateway-outputs', { sdkEnvironment: true });
const prefix = 'gw/';
const stack = useGateway(() => ({
  storage: { driver: 's3', s3: { bucket: s3.bucket, keyPrefix: prefix, forcePathStyle: true } },
}));
const owner = useFundedDeveloper(stack);
const inputs = usePngInputServer();

const bucketKeys = async (under: string) => {
  const listed = await new S3Client(s3.client).send(
    new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: `${prefix}${under}` }),
  );
  return (listed.Contents ?? []).map((object) => object.Key!);
};

async function uploaded(data: Buffer, type: string): Promise<{ id: string; url: string }> {
  const form = new FormData();
  form.append('file', new Blob([data], { type }), 'input');
  const response = await fetch(`${stack.app.url}/api/v1/uploads`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.key}` },
    body: form,
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; url: string };
}

describe('STORAGE_DRIVER=s3', () => {
  it.each<[string, () => Promise<Record<string, unknown>>, string]>([
    ['local/lanczos', async () => ({ type: 'upscale', image_url: `${inputs.url()}/photo.png` }), 'image/png'],
    ['local/espeak', async () => ({ type: 'text-to-audio', prompt: 'Stored in a bucket.' }), 'audio/wav'],
    [
      'local/ken-burns',
      async () => ({ type: 'image-to-video', image_url: (await uploaded(await pngImage(64, 48), 'image/png')).url }),
      'video/mp4',
    ],
    [
      'local/audio-clean',
      async () => ({ type: 'audio-to-audio', audio_url: (await uploaded(wavTone(1), 'audio/wav')).url }),
      'audio/',
    ],
    [
      'local/transcode',
      async () => ({
        type: 'video-to-video',
        resolution: '480p',
        video_url: (await uploaded(await mp4Clip(), 'video/mp4')).url,
      }),
      'video/mp4',
    ],
  ])(
    '%s completes; its output is an object in the bucket, downloadable from its link',
    async (model, request, type) => {
      const id = await startGeneration(stack, { key: owner.key, body: { model, ...(await request()) } });
      const task = await waitForEnd(stack, { key: owner.key, pollUrl: `/generations/${id}` });
      expect(task).toMatchObject({ status: 'completed' });
      const keys = await bucketKeys(`${id}/`);
      expect(keys).toHaveLength(1);
      const download = await fetch(task.output);
      expect(download.status).toBe(200);
      expect(download.headers.get('content-type')).toContain(type);
      // Streamed through the api, under the same headers as a local file (issue 55, point 15).
      expect(download.headers.get('x-content-type-options')).toBe('nosniff');
      expect(download.headers.get('content-security-policy')).toBe(storedFileContentSecurityPolicy);
      const bytes = Buffer.from(await download.arrayBuffer());
      expect(bytes.length).toBe(Number(download.headers.get('content-length')));
      expect(bytes.length).toBeGreaterThan(0);
    },
    120_000,
  );

  it('keeps uploads in the bucket too, writes nothing under DATA_DIR/files, and the expiry sweep deletes them', async () => {
    const upload = await uploaded(await pngImage(), 'image/png');
    expect(await bucketKeys(`uploads/${owner.accountId}/`)).toContain(
      `${prefix}uploads/${owner.accountId}/${upload.id}.png`,
    );
    expect(existsSync(stack.filesDir)).toBe(false);

    await stack.database.prisma.upload.updateMany({
      where: { accountId: owner.accountId },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const storage = configuredStorage(stack.config.storage, '/nonexistent', stack.app.url);
    const { deleted } = await deleteExpiredUploads({ prisma: stack.database.prisma, storage }, 100);
    expect(deleted).toContain(upload.id);
    expect(await bucketKeys(`uploads/${owner.accountId}/`)).toEqual([]);
  });

  it('the output sweep deletes the objects of a task past its retention, whose links answer 410 from then on', async () => {
    const storage = configuredStorage(stack.config.storage, '/nonexistent', stack.app.url);
    const { prisma } = stack.database;
    const taskEnded = async (days: number) => {
      const completedAt = new Date(Date.now() - days * 86_400_000);
      const id = await createTaskRow(prisma, owner.accountId, 'completed', { completedAt });
      const url = await storage.put(`${id}/output-0.png`, await pngImage(), { contentType: 'image/png' });
      await prisma.task.update({ where: { id }, data: { output: url, outputs: [url] } });
      return { id, url };
    };
    const expired = await taskEnded(31);
    const recent = await taskEnded(1);
    expect((await fetch(expired.url)).status).toBe(410);
    expect((await fetch(recent.url)).status).toBe(200);

    const { deleted } = await deleteExpiredOutputs({ prisma, storage, config: stack.config }, 100);
    expect(deleted).toEqual([expired.id]);
    expect(await bucketKeys(`${expired.id}/`)).toEqual([]);
    expect(await bucketKeys(`${recent.id}/`)).toEqual([`${prefix}${recent.id}/output-0.png`]);
    expect(await fetch(expired.url).then((response) => response.json())).toMatchObject({ error: 'output_expired' });
  });
});

describe('a /files/ link streamed through from the bucket', () => {
  // 1000 bytes that differ from their neighbours, so a wrong offset shows.
  const bytes = Buffer.from(Array.from({ length: 1000 }, (_, index) => index % 251));
  let link: string;
  beforeAll(async () => {
    const taskId = await createTaskRow(stack.database.prisma, owner.accountId, 'completed');
    await new S3Client(s3.client).send(
      new PutObjectCommand({
        Bucket: s3.bucket,
        Key: `${prefix}${taskId}/output-0.mp4`,
        Body: bytes,
        ContentType: 'video/mp4',
      }),
    );
    link = `${stack.app.url}/files/${taskId}/output-0.mp4`;
  });

  it('answers the whole object with its type, length and ETag, and says it takes ranges', async () => {
    const response = await fetch(link);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('video/mp4');
    expect(response.headers.get('content-length')).toBe('1000');
    expect(response.headers.get('accept-ranges')).toBe('bytes');
    expect(response.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/);
    expect(Buffer.from(await response.arrayBuffer())).toEqual(bytes);
  });

  it.each<[string, number, string | null, Buffer]>([
    ['bytes=0-9', 206, 'bytes 0-9/1000', bytes.subarray(0, 10)],
    ['bytes=-5', 206, 'bytes 995-999/1000', bytes.subarray(995)],
    ['bytes=990-', 206, 'bytes 990-999/1000', bytes.subarray(990)],
    ['bytes=500-100000', 206, 'bytes 500-999/1000', bytes.subarray(500)],
    // As express.static: several ranges, a malformed one or another unit are answered with the whole file.
    ['bytes=0-1,5-6', 200, null, bytes],
    ['bytes=nine', 200, null, bytes],
    ['pages=1-2', 200, null, bytes],
  ])(
    'answers Range: %s with %i, Content-Range %s and exactly those bytes',
    async (range, status, contentRange, body) => {
      const response = await fetch(link, { headers: { range } });
      expect(response.status).toBe(status);
      expect(response.headers.get('content-range')).toBe(contentRange);
      expect(response.headers.get('content-length')).toBe(String(body.length));
      expect(response.headers.get('accept-ranges')).toBe('bytes');
      expect(Buffer.from(await response.arrayBuffer())).toEqual(body);
    },
  );

  it.each(['bytes=1000-', 'bytes=5000-6000', 'bytes=-0'])(
    'answers Range: %s, outside the object, with 416 and its size, in the error envelope',
    async (range) => {
      const response = await fetch(link, { headers: { range } });
      expect(response.status).toBe(416);
      expect(response.headers.get('content-range')).toBe('bytes */1000');
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(await response.json()).toEqual({
        error: 'range_not_satisfiable',
        message: 'No bytes of the file are in the range asked for; Content-Range gives its size.',
      });
    },
  );

  it('answers HEAD with the headers of the same GET and no body', async () => {
    const whole = await fetch(link, { method: 'HEAD' });
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-length')).toBe('1000');
    expect(whole.headers.get('content-type')).toBe('video/mp4');
    expect(await whole.text()).toBe('');
    const part = await fetch(link, { method: 'HEAD', headers: { range: 'bytes=0-9' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe('bytes 0-9/1000');
    expect(part.headers.get('content-length')).toBe('10');
  });

  it('answers 304 to a caller holding its ETag, and If-Range naming another version with the whole object', async () => {
    const etag = (await fetch(link, { method: 'HEAD' })).headers.get('etag')!;
    // fetch adds `Cache-Control: no-cache` to a conditional request unless given one, and no-cache forbids a 304.
    const conditional = { 'cache-control': 'max-age=0' };
    const held = await fetch(link, { headers: { ...conditional, 'if-none-match': etag } });
    expect(held.status).toBe(304);
    expect(held.headers.get('etag')).toBe(etag);
    expect(await held.text()).toBe('');
    expect((await fetch(link, { headers: { ...conditional, 'if-none-match': '"other"' } })).status).toBe(200);

    const sameVersion = await fetch(link, { headers: { range: 'bytes=0-9', 'if-range': etag } });
    expect(sameVersion.status).toBe(206);
    const otherVersion = await fetch(link, { headers: { range: 'bytes=0-9', 'if-range': '"other"' } });
    expect(otherVersion.status).toBe(200);
    expect(Buffer.from(await otherVersion.arrayBuffer())).toEqual(bytes);
  });
});
