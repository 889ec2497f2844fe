// Part of `npm run bench`: a 50 MB video output through each storage driver, as the gateway moves one — stored as the
// provider activity stores it (from the file an engine or a download wrote), then downloaded from its /files link through the api's file route — with the rate of
// each and the process's resident memory at its peak. The S3 driver runs against moto's server (from PyPI).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import express from 'express';
import { storeOutputs } from '../activities/stored-outputs.ts';
import { linkedFileKey } from '../src/api/middleware/delivered-outputs.ts';
import { storedFiles } from '../src/api/middleware/stored-files.ts';
import { s3ServerDir } from '../src/infra/tools.ts';
import { createLocalStorage } from '../src/storage/local-storage.ts';
import { createS3ObjectStore } from '../src/storage/s3-object-store.ts';
import { createStorage, type Storage } from '../src/storage/storage.ts';
import { listenLocally } from '../harness/local-server.ts';
import { freePort } from '../harness/ports.ts';

const size = 50 * 1024 * 1024;
const mb = size / (1024 * 1024);

async function startMoto(): Promise<{ endpoint: string; server: ChildProcess }> {
  const port = await freePort();
  const server = spawn('python3', [join(s3ServerDir, 'bin', 'moto_server'), '-H', '127.0.0.1', '-p', String(port)], {
    env: { ...process.env, PYTHONPATH: s3ServerDir },
    stdio: 'ignore',
  });
  const endpoint = `http://127.0.0.1:${port}`;
  for (let tries = 0; tries < 300; tries += 1) {
    if (
      await fetch(`${endpoint}/moto-api/`).then(
        () => true,
        () => false,
      )
    )
      return { endpoint, server };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('moto_server did not start');
}

/** Peak resident memory while `step` runs, sampled every 10 ms, and how far it rose above where it started. */
async function peakRss<T>(step: () => Promise<T>): Promise<{ result: T; peakMb: number; growthMb: number }> {
  const start = process.memoryUsage().rss;
  let peak = start;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  try {
    return { result: await step(), peakMb: peak / (1024 * 1024), growthMb: (peak - start) / (1024 * 1024) };
  } finally {
    clearInterval(sampler);
  }
}

async function throughput(driver: string, storage: Storage) {
  const app = express();
  app.use('/files', linkedFileKey, storedFiles(storage));
  const server = createServer(app);
  const { url } = await listenLocally(server);
  const path = join(dir, `${driver.split(' ')[0]}.mp4`);
  await writeFile(path, Buffer.alloc(size, 7));
  const file = { path, extension: 'mp4', contentType: 'video/mp4' };
  const { result, peakMb, growthMb } = await peakRss(async () => {
    const stored = Date.now();
    await storeOutputs(storage, 'gen_bench', [file], new AbortController().signal);
    const storeMs = Date.now() - stored;
    const fetched = Date.now();
    const response = await fetch(`${url}/files/gen_bench/output-0.mp4`);
    let received = 0;
    for await (const chunk of response.body!) received += chunk.length;
    if (received !== size) throw new Error(`${driver}: downloaded ${received} bytes of ${size}`);
    return { storeMs, downloadMs: Date.now() - fetched };
  });
  server.close();
  const rate = (ms: number) => `${(mb / (ms / 1000)).toFixed(0)} MB/s`;
  return `| ${driver} | ${rate(result.storeMs)} | ${rate(result.downloadMs)} | ${peakMb.toFixed(0)} MB (+${growthMb.toFixed(0)} MB) |`;
}

const dir = await mkdtemp(join(tmpdir(), 'bench-storage-'));
const moto = await startMoto();
try {
  const client = {
    endpoint: moto.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'b', secretAccessKey: 'b' },
  };
  await new S3Client({ ...client, forcePathStyle: true }).send(new CreateBucketCommand({ Bucket: 'bench' }));
  const rows = [
    await throughput('local', createLocalStorage(join(dir, 'files'), 'http://bench')),
    await throughput(
      's3 (moto)',
      createStorage(
        createS3ObjectStore({ bucket: 'bench', keyPrefix: '', forcePathStyle: true, client }),
        'http://bench',
      ),
    ),
  ];
  console.log(`\nA ${mb} MB video output through each storage driver (store, then download from its /files link)\n`);
  console.log('| driver | store | download | peak RSS of the process (rise while moving it) |\n|---|---:|---:|---:|');
  for (const row of rows) console.log(row);
} finally {
  moto.server.kill('SIGTERM');
  await rm(dir, { recursive: true, force: true });
}
