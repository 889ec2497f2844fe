// STORAGE_DRIVER=s3 through the real stack, on an S3-compatible server nobody on this project wrote (moto's): the
// AWS SDK finds it through its own settings (AWS_ENDPOINT_URL_S3, credentials, region). Every local model completes
// with a downloadable output; outputs and uploads are objects in the bucket; nothing is written under DATA_DIR/files;
// the upload and output expiry sweeps delete expired objects.
import { existsSync } from 'node:fs';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
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
