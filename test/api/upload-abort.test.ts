// POST /uploads abandoned mid-body (issue 35, point 4): the caller's connection drops while its bytes are being
// written, raw or as a multipart part; the handler settles and its temporary file is gone, so repeated aborts cannot
// fill the temporary folder. Each case has a temporary folder (TMPDIR) of its own: no other upload is counted.
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeveloperWithKey } from '../helpers/accounts.ts';
import { useAppWithDatabase } from '../helpers/app.ts';

const stack = useAppWithDatabase();
const previousTmpdir = process.env.TMPDIR;
const folders: string[] = [];
let key: string;

beforeAll(async () => {
  key = (await createDeveloperWithKey(stack.database.prisma)).apiKey.key;
});

afterAll(async () => {
  if (previousTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = previousTmpdir;
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

/** A fresh temporary folder for the service's uploads from now on. */
async function useTemporaryFolder(): Promise<string> {
  const folder = await mkdtemp(join(previousTmpdir ?? tmpdir(), 'upload-abort-'));
  folders.push(folder);
  process.env.TMPDIR = folder;
  return folder;
}

/** The sizes of the uploads' temporary files in `folder` (a directory of its own each). */
async function temporaryFileSizes(folder: string): Promise<number[]> {
  const sizes: number[] = [];
  for (const directory of await readdir(folder))
    for (const file of await readdir(join(folder, directory)).catch(() => []))
      sizes.push((await stat(join(folder, directory, file)).catch(() => ({ size: 0 }))).size);
  return sizes;
}

const boundary = 'upload-abort-boundary';
const partHead = Buffer.from(
  `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="input.png"\r\n` +
    'Content-Type: image/png\r\n\r\n',
);

describe('an upload whose caller hangs up mid-body', () => {
  it.each([
    ['multipart/form-data', `multipart/form-data; boundary=${boundary}`, partHead],
    ['a raw body', 'image/png', Buffer.alloc(0)],
  ])('%s: the handler settles and leaves no temporary file', async (_name, contentType, head) => {
    const folder = await useTemporaryFolder();
    const sent = Buffer.concat([head, Buffer.alloc(16_384, 1)]);
    const upload = request(`${stack.app.url}/api/v1/uploads`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': contentType,
        // Far more than is sent: the server waits for the rest.
        'content-length': String(sent.length * 10),
      },
    });
    upload.on('error', () => {});
    upload.write(sent);
    // Its bytes are being written to the temporary file when the caller goes.
    await expect
      .poll(async () => (await temporaryFileSizes(folder)).some((size) => size > 0), { timeout: 20_000 })
      .toBe(true);
    upload.destroy();
    // The handler removes its file on the way out: an empty folder means it settled.
    await expect.poll(() => readdir(folder), { timeout: 20_000 }).toEqual([]);
  });
});
