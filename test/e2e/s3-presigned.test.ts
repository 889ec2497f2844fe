// STORAGE_PRESIGNED_URLS=true through the real stack, on moto's S3-compatible server: a delivered output's /files/ link
// answers 302 to a presigned link on the bucket's endpoint, so the bytes never pass through the api. The rules before
// it (only a completed task's outputs, never an upload) and a missing object still answer the gateway's own 404.
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { startGeneration, waitForEnd } from '../helpers/http.ts';
import { pngImage } from '../helpers/media.ts';
import { usePngInputServer } from '../helpers/png-input-server.ts';
import { useS3Server } from '../helpers/s3-server.ts';
import { createTaskRow } from '../helpers/task-rows.ts';

const s3 = useS3Server('presigned-outputs', { sdkEnvironment: true });
const prefix = 'gw/';
const lifetime = 120;
const stack = useGateway(() => ({
  storage: {
    driver: 's3',
    s3: { bucket: s3.bucket, keyPrefix: prefix, forcePathStyle: true },
    presignedUrls: true,
    presignedUrlSeconds: lifetime,
  },
}));
const owner = useFundedDeveloper(stack);
const inputs = usePngInputServer();

const bucket = () => new S3Client(s3.client);
const storedBytes = async (key: string) => {
  const object = await bucket().send(new GetObjectCommand({ Bucket: s3.bucket, Key: `${prefix}${key}` }));
  return Buffer.from(await object.Body!.transformToByteArray());
};
const store = (key: string, Body: Buffer, ContentType: string) =>
  bucket().send(new PutObjectCommand({ Bucket: s3.bucket, Key: `${prefix}${key}`, Body, ContentType }));

describe('STORAGE_PRESIGNED_URLS=true', () => {
  it("answers a completed task's output link with 302 to a presigned link on the bucket, which gives its bytes", async () => {
    const id = await startGeneration(stack, {
      key: owner.key,
      body: { model: 'local/lanczos', type: 'upscale', image_url: `${inputs.url()}/photo.png` },
    });
    const task = await waitForEnd(stack, { key: owner.key, pollUrl: `/generations/${id}` });
    expect(task).toMatchObject({ status: 'completed' });
    // The link given out is still the gateway's: its rules apply before any redirect.
    const output = new URL(task.output);
    expect(output.origin).toBe(stack.app.url);
    const key = output.pathname.slice('/files/'.length);
    expect(key).toMatch(new RegExp(`^${id}/`));

    for (const method of ['GET', 'HEAD']) {
      const redirect = await fetch(output, { method, redirect: 'manual' });
      expect(redirect.status).toBe(302);
      expect(redirect.headers.get('cache-control')).toBe(`private, max-age=${lifetime / 2}`);
      const link = new URL(redirect.headers.get('location')!);
      expect(link.origin).toBe(s3.endpoint);
      expect(link.pathname).toBe(`/${s3.bucket}/${prefix}${key}`);
      expect(link.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
      expect(link.searchParams.get('X-Amz-Expires')).toBe(String(lifetime));
    }

    const download = await fetch(output);
    expect(download.url).toMatch(new RegExp(`^${s3.endpoint}/`));
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('image/png');
    const bytes = Buffer.from(await download.arrayBuffer());
    expect(bytes).toEqual(await storedBytes(key));
    expect(bytes.subarray(1, 4).toString()).toBe('PNG');
  });

  it('lets a player seek: its Range follows the redirect, and the bucket answers 206 with those bytes', async () => {
    const taskId = await createTaskRow(stack.database.prisma, owner.accountId, 'completed');
    const bytes = Buffer.from(Array.from({ length: 1000 }, (_, index) => index % 251));
    await store(`${taskId}/output-0.mp4`, bytes, 'video/mp4');
    const response = await fetch(`${stack.app.url}/files/${taskId}/output-0.mp4`, {
      headers: { range: 'bytes=10-19' },
    });
    expect(response.status).toBe(206);
    expect(response.headers.get('content-range')).toBe('bytes 10-19/1000');
    expect(Buffer.from(await response.arrayBuffer())).toEqual(bytes.subarray(10, 20));
  });

  describe("answers the gateway's own 404, never a redirect", () => {
    const links: Record<string, string> = {};
    beforeAll(async () => {
      const png = await pngImage();
      // Each object is in the bucket but for the missing file's: the rules, not the store, refuse them.
      const processing = await createTaskRow(stack.database.prisma, owner.accountId, 'processing');
      await store(`${processing}/output-0.png`, png, 'image/png');
      links['an output of a task still processing'] = `/files/${processing}/output-0.png`;
      const failed = await createTaskRow(stack.database.prisma, owner.accountId, 'failed');
      await store(`${failed}/output-0.png`, png, 'image/png');
      links['an output of a failed task'] = `/files/${failed}/output-0.png`;
      const completed = await createTaskRow(stack.database.prisma, owner.accountId, 'completed');
      links['a file a completed task does not have'] = `/files/${completed}/output-9.png`;

      const form = new FormData();
      form.append('file', new Blob([png], { type: 'image/png' }), 'input');
      const upload = await fetch(`${stack.app.url}/api/v1/uploads`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.key}` },
        body: form,
      });
      expect(upload.status).toBe(201);
      const { url } = (await upload.json()) as { url: string };
      links['an upload, even one in the bucket'] = new URL(url).pathname;
    });

    it.each([
      'an output of a task still processing',
      'an output of a failed task',
      'a file a completed task does not have',
      'an upload, even one in the bucket',
    ])('to %s', async (name) => {
      const path = links[name]!;
      const response = await fetch(`${stack.app.url}${path}`, { redirect: 'manual' });
      expect(response.status).toBe(404);
      expect(response.headers.get('location')).toBeNull();
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.json()).toEqual({ error: 'not_found', message: `No file ${path}.` });
    });
  });
});
