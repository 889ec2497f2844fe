// The output retention sweep on real PostgreSQL and both storage drivers (a local directory, and the S3 driver on
// moto's server): tasks that ended past OUTPUT_RETENTION_DAYS lose every file under their folder (a failed task's
// stray outputs too) and are marked, oldest first, a page at a time; recent, running and marked tasks and uploads are
// left alone; a retried page and a second run are no error; a retention of 0 deletes nothing.
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteExpiredOutputs } from '../../src/generations/expired-outputs.ts';
import { createLocalStorage } from '../../src/storage/local-storage.ts';
import { ObjectNotFoundError } from '../../src/storage/object-store.ts';
import { createS3ObjectStore } from '../../src/storage/s3-object-store.ts';
import { createStorage, type Storage } from '../../src/storage/storage.ts';
import { createFundedAccount } from '../helpers/accounts.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { useS3Server } from '../helpers/s3-server.ts';
import { createTaskRow } from '../helpers/task-rows.ts';

const s3 = useS3Server();
const base = 'http://gateway.test';
const dayMs = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * dayMs);

const drivers: [string, () => Promise<{ storage: Storage; folderGone?: (id: string) => boolean }>][] = [
  [
    'local',
    async () => {
      const root = await mkdtemp(join(tmpdir(), 'expired-outputs-'));
      return { storage: createLocalStorage(root, base), folderGone: (id) => !existsSync(join(root, id)) };
    },
  ],
  [
    's3',
    async () => ({
      storage: createStorage(
        createS3ObjectStore({ bucket: s3.bucket, keyPrefix: 'sweep/', forcePathStyle: true, client: s3.client }),
        base,
      ),
    }),
  ],
];

describe.each(drivers)('the output sweep with the %s driver', (_driver, make) => {
  let database: TestDatabase;
  let accountId: string;
  let storage: Storage;
  let folderGone: ((id: string) => boolean) | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
    accountId = await createFundedAccount(database.prisma);
    ({ storage, folderGone } = await make());
  });
  afterAll(() => database?.drop());

  const sweep = (limit = 100, retentionDays = 30) =>
    deleteExpiredOutputs({ prisma: database.prisma, storage, config: { outputs: { retentionDays } } }, limit);
  const exists = (key: string) =>
    storage.read(key).then(
      () => true,
      (error: unknown) => (error instanceof ObjectNotFoundError ? false : Promise.reject(error)),
    );
  const deletedAt = async (id: string) =>
    (await database.prisma.task.findUniqueOrThrow({ where: { id } })).outputsDeletedAt;

  /** A task row in `status`, ended `endedDaysAgo` (none: still running), with `files` stored under its folder. */
  async function taskWithFiles(
    status: 'processing' | 'completed' | 'failed',
    endedDaysAgo: number | null,
    files = ['output-0.png'],
  ) {
    const id = await createTaskRow(database.prisma, accountId, status, {
      completedAt: endedDaysAgo === null ? null : daysAgo(endedDaysAgo),
      startedAt: daysAgo(40),
    });
    const keys = files.map((file) => `${id}/${file}`);
    // A completed task's row names its outputs; a failed one's never does, though its files may be there.
    if (status === 'completed') {
      const urls = keys.map((key) => storage.url(key));
      await database.prisma.task.update({ where: { id }, data: { output: urls[0], outputs: urls } });
    }
    for (const key of keys) await storage.put(key, Buffer.from(key));
    return { id, keys };
  }

  it('deletes the files of tasks ended past the retention and marks them; recent, running ones and uploads stay', async () => {
    const failed = await taskWithFiles('failed', 45, ['output-0.png']);
    const completed = await taskWithFiles('completed', 31, ['output-0.png', 'output-1.png', 'output-0.png.77.partial']);
    const recent = await taskWithFiles('completed', 29);
    const running = await taskWithFiles('processing', null);
    await storage.put('uploads/acct/upl_a.png', Buffer.from('upload'));

    const before = await database.prisma.task.findUniqueOrThrow({ where: { id: completed.id } });
    const events = (id: string) => database.prisma.taskEvent.count({ where: { taskId: id } });
    expect(await events(completed.id)).toBeGreaterThan(0);
    expect(await sweep()).toEqual({ deleted: [failed.id, completed.id] });
    // Their event histories go with them (the task rows' triggers wrote them); the others' stay.
    expect([await events(failed.id), await events(completed.id)]).toEqual([0, 0]);
    expect(await events(recent.id)).toBeGreaterThan(0);

    for (const key of [...failed.keys, ...completed.keys]) expect(await exists(key)).toBe(false);
    for (const key of [...recent.keys, ...running.keys, 'uploads/acct/upl_a.png']) expect(await exists(key)).toBe(true);
    expect(await deletedAt(failed.id)).toBeInstanceOf(Date);
    expect(await deletedAt(completed.id)).toBeInstanceOf(Date);
    // Housekeeping: the task as its caller sees it has not changed.
    const after = await database.prisma.task.findUniqueOrThrow({ where: { id: completed.id } });
    expect(after.updatedAt).toEqual(before.updatedAt);
    expect(await deletedAt(recent.id)).toBeNull();
    expect(await deletedAt(running.id)).toBeNull();
    if (folderGone)
      expect([folderGone(failed.id), folderGone(completed.id), folderGone(recent.id)]).toEqual([true, true, false]);
  });

  it('pages oldest first, `limit` tasks a call, until none is left', async () => {
    const tasks = [await taskWithFiles('completed', 33), await taskWithFiles('completed', 32)];
    const oldest = await taskWithFiles('completed', 34);
    expect(await sweep(2)).toEqual({ deleted: [oldest.id, tasks[0]!.id] });
    expect(await sweep(2)).toEqual({ deleted: [tasks[1]!.id] });
    expect(await sweep(2)).toEqual({ deleted: [] });
  });

  it('a retried page (files deleted, rows not yet marked) and a second run change nothing more', async () => {
    const expired = await taskWithFiles('completed', 31);
    // The first attempt deleted the folder, then died before marking the row.
    await storage.removeFolders(expired.id);
    expect(await sweep()).toEqual({ deleted: [expired.id] });
    const marked = await deletedAt(expired.id);
    expect(marked).toBeInstanceOf(Date);
    expect(await sweep()).toEqual({ deleted: [] });
    expect(await deletedAt(expired.id)).toEqual(marked);
  });

  it('a retention of 0 keeps every output forever', async () => {
    const ancient = await taskWithFiles('completed', 3_000);
    expect(await sweep(100, 0)).toEqual({ deleted: [] });
    expect(await exists(ancient.keys[0]!)).toBe(true);
    expect(await deletedAt(ancient.id)).toBeNull();
    // Set again, the same task goes at the next run.
    expect(await sweep(100, 30)).toEqual({ deleted: [ancient.id] });
  });
});
