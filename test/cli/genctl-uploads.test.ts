// genctl uploads list|delete: the real command line against a test database and a DATA_DIR whose storage holds
// uploads made through the service (createUpload), of two accounts.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { createUpload, type UploadView } from '../../src/uploads/uploads.ts';
import { createLocalStorage, filesDirectory } from '../../src/storage/local-storage.ts';
import { createDeveloperWithKey } from '../helpers/accounts.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { runGenctl } from '../helpers/genctl.ts';
import { pngImage, wavTone } from '../helpers/media.ts';

let database: TestDatabase;
let dataDir: string;
const genctl = (...args: string[]) => runGenctl({ DATABASE_URL: database.url, DATA_DIR: dataDir }, args);
const accounts: string[] = [];
const uploads: UploadView[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = await mkdtemp(join(tmpdir(), 'genctl-uploads-'));
  const storage = createLocalStorage(filesDirectory(dataDir), 'http://localhost:8080');
  const config = loadConfig({}, []);
  for (const [index, data, contentType] of [
    [0, await pngImage(), 'image/png'],
    [1, wavTone(1), 'audio/wav'],
  ] as const) {
    const { developerId } = await createDeveloperWithKey(database.prisma);
    accounts.push(developerId);
    const path = join(dataDir, `input-${index}`);
    await writeFile(path, data);
    const upload = { accountId: developerId, path, size: data.length, contentType, field: 'body' };
    uploads.push(await createUpload({ prisma: database.prisma, config, storage }, upload));
  }
});
afterAll(async () => {
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const fileOf = (upload: UploadView) =>
  join(filesDirectory(dataDir), new URL(upload.url).pathname.slice('/files/'.length));

describe('genctl uploads', () => {
  it('lists live uploads newest first, of every account or of one', async () => {
    const all = await genctl('uploads', 'list', '--json');
    expect(all.code, all.stderr).toBe(0);
    expect(all.json.uploads.map((upload: any) => upload.id)).toEqual([uploads[1]!.id, uploads[0]!.id]);
    expect(all.json.uploads[1]).toEqual({
      id: uploads[0]!.id,
      account_id: accounts[0],
      key: `uploads/${accounts[0]}/${uploads[0]!.id}.png`,
      content_type: 'image/png',
      size: uploads[0]!.size,
      created_at: uploads[0]!.created_at,
      expires_at: uploads[0]!.expires_at,
      deleted_at: null,
    });
    const one = await genctl('uploads', 'list', '--account', accounts[1]!, '--json');
    expect(one.json.uploads.map((upload: any) => upload.id)).toEqual([uploads[1]!.id]);
    const text = await genctl('uploads', 'list');
    expect(text.stdout).toContain(`${uploads[1]!.id}  ${accounts[1]}  audio/wav  ${uploads[1]!.size} B  expires `);
  });

  it('deletes an upload: its file goes, it leaves the list; a second delete is refused (exit 1)', async () => {
    const [target] = uploads;
    expect(existsSync(fileOf(target!))).toBe(true);
    const deleted = await genctl('uploads', 'delete', target!.id);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout.trim()).toBe(`Deleted ${target!.id} (uploads/${accounts[0]}/${target!.id}.png).`);
    expect(existsSync(fileOf(target!))).toBe(false);
    const row = await database.prisma.upload.findUniqueOrThrow({ where: { id: target!.id } });
    expect(row.deletedAt).not.toBeNull();
    expect((await genctl('uploads', 'list', '--json')).json.uploads.map((upload: any) => upload.id)).toEqual([
      uploads[1]!.id,
    ]);
    const again = await genctl('uploads', 'delete', target!.id);
    expect(again).toMatchObject({ code: 1, stderr: `genctl: no live upload ${target!.id}\n` });
    expect((await genctl('uploads', 'delete')).code).toBe(2);
  });
});
