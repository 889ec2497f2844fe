// Uploads through the real stack: POST /uploads stores a checked file in the outputs' storage, a generation of the
// same account takes its URL (read from storage: private input URLs are refused here, so no download could reach
// it), bytes that are not what they claim or too many are refused with nothing stored, the expiry schedule deletes
// an expired upload, and another account can neither read nor use one.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ensureUploadExpirySchedule,
  uploadExpiryScheduleId,
} from '../../src/use-cases/temporal/upload-expiry-schedule.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { call, generateAndWait, postGeneration, registerAgent } from '../helpers/http.ts';
import { mp4Clip, pngImage, wavTone } from '../helpers/media.ts';

const imageLimit = 4096;
const quota = 300_000;
const stack = useGateway(() => ({
  inputs: { allowPrivateUrls: false },
  uploads: { maxImageBytes: imageLimit, quotaBytes: quota },
}));
const developer = useFundedDeveloper(stack);

/** POST /uploads with `body` as the raw body (or a FormData, sent as multipart). */
async function upload(
  key: string,
  body: Buffer | FormData,
  contentType?: string,
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${stack.app.url}/api/v1/uploads`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, ...(contentType ? { 'content-type': contentType } : {}) },
    body,
  });
  return { status: response.status, body: await response.json() };
}

const multipart = (name: string, data: Buffer, type: string) => {
  const form = new FormData();
  form.append(name, new Blob([data], { type }), 'input');
  return form;
};

/** The upload rows and stored files of an account. */
async function storedFor(accountId: string) {
  const directory = join(stack.filesDir, 'uploads', accountId);
  return {
    rows: await stack.database.prisma.upload.count({ where: { accountId } }),
    files: existsSync(directory) ? readdirSync(directory) : [],
  };
}

const uploadIdPattern = /^upl_[0-9A-Za-z]{22}$/;

describe('an upload, then a generation from its URL with a local engine', () => {
  it.each<[string, () => Buffer | Promise<Buffer>, string, Record<string, unknown>, string]>([
    ['PNG', () => pngImage(), 'image/png', { type: 'upscale', model: 'local/lanczos' }, 'image_url'],
    ['WAV', () => wavTone(1), 'audio/wav', { type: 'audio-to-audio', model: 'local/audio-clean' }, 'audio_url'],
    [
      'MP4',
      () => mp4Clip(),
      'video/mp4',
      { type: 'video-to-video', model: 'local/transcode', resolution: '480p' },
      'video_url',
    ],
  ])('%s: 201 with the upload; the generation completes', async (_name, media, contentType, request, field) => {
    const data = await media();
    const created = await upload(developer.key, data, contentType);
    expect(created.status).toBe(201);
    const { id, url } = created.body;
    expect(id).toMatch(uploadIdPattern);
    expect(created.body).toMatchObject({ content_type: contentType, size: data.length });
    expect(url).toMatch(new RegExp(`^${stack.app.url}/files/uploads/${developer.accountId}/${id}\\.`));
    const ttl = Date.parse(created.body.expires_at) - Date.parse(created.body.created_at);
    expect(ttl).toBe(stack.config.uploads.ttlSeconds * 1000);

    const done = await generateAndWait(stack, { key: developer.key, body: { ...request, [field]: url } });
    expect(done.error ?? null).toBeNull();
    expect(done.status).toBe('completed');
    expect((await fetch(done.output)).status).toBe(200);
  });

  it('multipart/form-data: the file part is stored as the raw body would be', async () => {
    const png = await pngImage(8, 8);
    const created = await upload(developer.key, multipart('file', png, 'image/png'));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ content_type: 'image/png', size: png.length });
    const read = await call(stack, 'GET', `/uploads/${created.body.id}`, { key: developer.key });
    expect(read).toMatchObject({ status: 200, body: created.body });
  });
});

describe('refused uploads: 400 or 413, nothing stored', () => {
  const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
  it.each<[string, () => Promise<Buffer | FormData>, string | undefined, number, object]>([
    [
      'PNG bytes declared as WAV',
      () => pngImage(),
      'audio/wav',
      400,
      { error: 'validation_error', message: 'Invalid body: body: is image/png, not the declared audio/wav' },
    ],
    [
      'an SVG declared as PNG',
      async () => svg,
      'image/png',
      400,
      {
        error: 'validation_error',
        message: 'Invalid body: body: is not an image, audio or video file an upload may be',
      },
    ],
    [
      'HTML as HTML',
      async () => Buffer.from('<html><body>hi</body></html>'),
      'text/html',
      400,
      {
        error: 'validation_error',
        message: expect.stringMatching(
          /^Invalid body: Content-Type: Content-Type text\/html cannot be uploaded; allowed: image\/png, /,
        ),
      },
    ],
    [
      'an SVG as SVG',
      async () => svg,
      'image/svg+xml',
      400,
      {
        error: 'validation_error',
        message: expect.stringMatching(/^Invalid body: Content-Type: Content-Type image\/svg\+xml cannot be uploaded/),
      },
    ],
    [
      'a multipart part whose bytes are not its type',
      async () => multipart('file', await pngImage(), 'video/mp4'),
      undefined,
      400,
      { error: 'validation_error', message: 'Invalid body: file: is image/png, not the declared video/mp4' },
    ],
    [
      'a raw image over the image limit',
      async () => Buffer.concat([await pngImage(), Buffer.alloc(imageLimit)]),
      'image/png',
      413,
      {
        error: 'payload_too_large',
        message: `The image is larger than the limit of ${imageLimit} bytes for image uploads.`,
      },
    ],
    [
      'a multipart image over the image limit',
      async () => multipart('file', Buffer.concat([await pngImage(), Buffer.alloc(imageLimit)]), 'image/png'),
      undefined,
      413,
      {
        error: 'payload_too_large',
        message: `The image is larger than the limit of ${imageLimit} bytes for image uploads.`,
      },
    ],
  ])('%s', async (_name, body, contentType, status, error) => {
    const agent = await registerAgent(stack);
    const { agent_id: accountId } = agent;
    const refused = await upload(agent.api_key, await body(), contentType);
    expect(refused).toEqual({ status, body: error });
    expect(await storedFor(accountId)).toEqual({ rows: 0, files: [] });
  });

  it("413 upload_quota_exceeded past the account's quota; deleting an upload frees its bytes", async () => {
    const agent = await registerAgent(stack);
    const wav = wavTone(10);
    const first = await upload(agent.api_key, wav, 'audio/wav');
    expect(first.status).toBe(201);
    const second = await upload(agent.api_key, wav, 'audio/wav');
    expect(second).toEqual({
      status: 413,
      body: {
        error: 'upload_quota_exceeded',
        message: `This upload would exceed the account's upload quota of ${quota} bytes (${wav.length} in use); delete uploads or wait until they expire.`,
      },
    });
    expect(await storedFor(agent.agent_id)).toEqual({ rows: 1, files: [`${first.body.id}.wav`] });
    const deleted = await call(stack, 'DELETE', `/uploads/${first.body.id}`, { key: agent.api_key });
    expect(deleted).toMatchObject({ status: 200, body: first.body });
    expect((await storedFor(agent.agent_id)).files).toEqual([]);
    expect((await upload(agent.api_key, wav, 'audio/wav')).status).toBe(201);
  });
});

describe('another account', () => {
  it('cannot read, delete, download or use an upload: answered as an unknown one', async () => {
    const owner = await registerAgent(stack);
    const other = await registerAgent(stack);
    const created = await upload(owner.api_key, await pngImage(), 'image/png');
    expect(created.status).toBe(201);
    const { id, url } = created.body;
    const unknownId = 'upl_0000000000000000000000';

    for (const method of ['GET', 'DELETE']) {
      expect(await call(stack, method, `/uploads/${id}`, { key: other.api_key })).toMatchObject({
        status: 404,
        body: { error: 'not_found', message: `No upload ${id}.` },
      });
      expect((await call(stack, method, `/uploads/${unknownId}`, { key: other.api_key })).status).toBe(404);
    }
    expect((await call(stack, 'GET', '/uploads', { key: other.api_key })).body).toEqual({ uploads: [] });
    expect((await call(stack, 'GET', '/uploads', { key: owner.api_key })).body).toEqual({ uploads: [created.body] });
    // The file is not served for download, to anyone.
    expect((await fetch(url)).status).toBe(404);
    expect((await fetch(url, { headers: { authorization: `Bearer ${owner.api_key}` } })).status).toBe(404);

    const refusal = {
      error: 'validation_error',
      message: 'Invalid body: image_url: names no upload of this account (unknown, expired or deleted)',
    };
    const theirs = await postGeneration(stack, {
      key: other.api_key,
      body: { type: 'upscale', model: 'local/lanczos', image_url: url },
    });
    expect(theirs).toMatchObject({ status: 400, body: refusal });
    const unknown = await postGeneration(stack, {
      key: other.api_key,
      body: { type: 'upscale', model: 'local/lanczos', image_url: url.replace(id, unknownId) },
    });
    expect(unknown).toMatchObject({ status: 400, body: refusal });
    expect(await stack.database.prisma.task.count({ where: { accountId: other.agent_id } })).toBe(0);
    // Still the owner's, untouched.
    expect((await call(stack, 'GET', `/uploads/${id}`, { key: owner.api_key })).status).toBe(200);
  });
});

describe('expiry', () => {
  it('the schedule deletes an expired upload: its file is gone, its id and its URL answer 404 / 400', async () => {
    const agent = await registerAgent(stack);
    const created = await upload(agent.api_key, await pngImage(), 'image/png');
    expect(created.status).toBe(201);
    const { id, url } = created.body;
    expect(await storedFor(agent.agent_id)).toEqual({ rows: 1, files: [`${id}.png`] });
    // Its day has passed (the row is what expiry goes by).
    await stack.database.prisma.upload.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1000) } });

    await ensureUploadExpirySchedule(stack.env.client, stack.config);
    await stack.env.client.schedule.getHandle(uploadExpiryScheduleId).trigger();
    await expect
      .poll(async () => (await stack.database.prisma.upload.findUniqueOrThrow({ where: { id } })).deletedAt, {
        timeout: 15_000,
      })
      .not.toBeNull();
    expect((await storedFor(agent.agent_id)).files).toEqual([]);
    expect(await call(stack, 'GET', `/uploads/${id}`, { key: agent.api_key })).toMatchObject({
      status: 404,
      body: { error: 'not_found', message: `No upload ${id}.` },
    });
    expect((await fetch(url)).status).toBe(404);
    const generation = await postGeneration(stack, {
      key: agent.api_key,
      body: { type: 'upscale', model: 'local/lanczos', image_url: url },
    });
    expect(generation).toMatchObject({
      status: 400,
      body: {
        error: 'validation_error',
        message: 'Invalid body: image_url: names no upload of this account (unknown, expired or deleted)',
      },
    });
  });
});
