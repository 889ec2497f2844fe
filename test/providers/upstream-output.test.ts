// Output downloads from upstream results go through the private-network guard and refuse redirects, as input
// downloads do: an upstream's result names the URL (it may even echo a caller's), so it is not to be trusted.
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createFalJobs } from '../../src/providers/fal/queue.ts';
import { createReplicateJobs } from '../../src/providers/replicate/predictions.ts';
import { outputLimits } from '../../src/providers/registry.ts';
import { ProviderRefusal } from '../../src/providers/types.ts';
import { downloadOutput } from '../../src/providers/upstream-output.ts';
import { closeServer, listenLocally } from '../../harness/local-server.ts';
import { type OutputMedia, pngImage } from '../helpers/media.ts';
import { startFalStandIn } from '../stand-ins/fal-queue.ts';
import { startReplicateStandIn } from '../stand-ins/replicate.ts';

let server: Server;
let port: number;
const requested: string[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    requested.push(req.url ?? '');
    if (req.url === '/out.png') res.writeHead(200, { 'content-type': 'image/png' }).end('png bytes');
    else if (req.url === '/endless') {
      // No Content-Length: only counting the bytes as they come can stop it.
      res.writeHead(200, { 'content-type': 'video/mp4' });
      const chunk = Buffer.alloc(64 * 1024, 1);
      const more = () => {
        while (res.write(chunk));
      };
      res.on('drain', more);
      more();
    } else if (req.url === '/redirect') res.writeHead(302, { location: '/out.png' }).end();
    else res.writeHead(404).end();
  });
  ({ port } = await listenLocally(server));
  outputDir = await mkdtemp(join(tmpdir(), 'upstream-output-test-'));
  open.path = join(outputDir, 'out');
});
afterAll(async () => {
  server.closeAllConnections();
  await closeServer(server);
  await rm(outputDir, { recursive: true, force: true });
});

let outputDir: string;
const open = { path: '', maxBytes: 1024, timeoutMs: 5_000, allowPrivate: true };
const guarded = { ...open, allowPrivate: false };

describe('downloadOutput', () => {
  it('downloads from a private address only where ALLOW_PRIVATE_OUTPUT_URLS allows it, into the file it is given', async () => {
    expect(await downloadOutput(`http://127.0.0.1:${port}/out.png`, open)).toEqual({
      path: open.path,
      contentType: 'image/png',
      extension: 'png',
    });
    expect(await readFile(open.path, 'utf8')).toBe('png bytes');
  });

  it('stops an output that passes the limit as it comes, holding no more than the limit', async () => {
    const path = join(outputDir, 'endless');
    await expect(
      downloadOutput(`http://127.0.0.1:${port}/endless`, { ...open, path, maxBytes: 1_000_000 }),
    ).rejects.toThrow('output larger than 1000000 bytes');
    expect((await stat(path)).size).toBeLessThanOrEqual(1_000_000);
  });

  // Loopback only: run against a build without the guard, these requests must not leave the machine.
  it.each(['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]', 'localhost'])(
    'refuses an output at %s (a literal, or a name that resolves to loopback) for good',
    async (host) => {
      const download = downloadOutput(`http://${host}:${port}/out.png`, guarded);
      await expect(download).rejects.toThrow(ProviderRefusal);
      await expect(download).rejects.toThrow(/^The model's output was refused: \S+ is a private address\.$/);
    },
  );

  it('refuses a redirect without following it', async () => {
    const before = requested.length;
    const download = downloadOutput(`http://127.0.0.1:${port}/redirect`, open);
    await expect(download).rejects.toThrow(ProviderRefusal);
    await expect(download).rejects.toThrow("The model's output was refused: its URL answered a redirect (HTTP 302).");
    expect(requested.slice(before)).toEqual(['/redirect']);
  });
});

describe('upstream adapters', () => {
  let media: OutputMedia;
  beforeAll(async () => {
    media = {
      image: await pngImage(),
      video: Buffer.from('mp4'),
      audio: Buffer.from('mp3'),
      model: Buffer.from('glb'),
    };
  });
  const model = loadCatalog().models.find((entry) => entry.id === 'fal/flux-dev')!;
  const replicateModel = loadCatalog().models.find((entry) => entry.id === 'replicate/wan-2.2')!;
  const request = { type: 'text-to-image' as const, model: model.id, prompt: 'a lighthouse' };
  const signal = AbortSignal.timeout(10_000);

  it.each([
    ['by default', {}, 'refused'],
    ['with ALLOW_PRIVATE_OUTPUT_URLS=true', { ALLOW_PRIVATE_OUTPUT_URLS: 'true' }, 'downloaded'],
  ])('fal collects outputs through the guard %s', async (_name, env, outcome) => {
    const fal = await startFalStandIn({ key: 'fal-key', media });
    try {
      const config = loadConfig({ FAL_KEY: 'fal-key', FAL_QUEUE_URL: fal.queueUrl, ...env }, []);
      const jobs = createFalJobs(config.providers.fal, outputLimits(config));
      const id = await jobs.submit(request, model, { signal });
      while ((await jobs.status(model, id, signal)).state !== 'succeeded');
      const collected = jobs.collect(model, id, { signal, outputDir });
      if (outcome === 'refused') await expect(collected).rejects.toThrow(/is a private address/);
      else expect((await collected).files).toHaveLength(1);
    } finally {
      await fal.close();
    }
  });

  it.each([
    ['by default', {}, 'refused'],
    ['with ALLOW_PRIVATE_OUTPUT_URLS=true', { ALLOW_PRIVATE_OUTPUT_URLS: 'true' }, 'downloaded'],
  ])('Replicate collects outputs through the guard %s', async (_name, env, outcome) => {
    const replicate = await startReplicateStandIn({ token: 'r8-token', media });
    try {
      const config = loadConfig({ REPLICATE_API_TOKEN: 'r8-token', REPLICATE_BASE_URL: replicate.baseUrl, ...env }, []);
      const jobs = createReplicateJobs(config.providers.replicate, outputLimits(config));
      const id = await jobs.submit(
        { type: 'text-to-video', model: replicateModel.id, prompt: 'waves' },
        replicateModel,
        { signal },
      );
      while ((await jobs.status(replicateModel, id, signal)).state !== 'succeeded');
      const collected = jobs.collect(replicateModel, id, { signal, outputDir });
      if (outcome === 'refused') await expect(collected).rejects.toThrow(/is a private address/);
      else expect((await collected).files.length).toBeGreaterThan(0);
    } finally {
      await replicate.close();
    }
  });
});
