// The files a process announces itself by may name secrets (the cluster's runtime.json: its database password):
// only their owner reads them, also when an earlier one was left with a looser mode.
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { writeRuntimeFile } from '../../src/runtime-file.ts';

const dataDir = await mkdtemp(join(tmpdir(), 'gateway-announcement-'));
afterAll(() => rm(dataDir, { recursive: true, force: true }));

it('writes runtime.json readable by its owner only', async () => {
  const file = join(dataDir, 'runtime.json');
  await writeFile(file, '{}', { mode: 0o644 });
  const databaseUrl = 'postgresql://gateway:secret@127.0.0.1:5433/gateway';
  await writeRuntimeFile(dataDir, {
    pid: process.pid,
    role: 'cluster',
    databaseUrl,
    temporalAddress: 'x:1',
    temporalNamespace: 'default',
  });
  expect((await stat(file)).mode & 0o777).toBe(0o600);
});
