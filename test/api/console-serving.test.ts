// /console: the built app with its caching and security headers, client routes answered by index.html, and a clear
// 503 (not a crash) where the console has not been built.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleRouter } from '../../src/api/console.ts';

let dir: string;
const servers: Server[] = [];

async function serve(distDir: string): Promise<string> {
  const app = express();
  app.use('/console', consoleRouter(distDir));
  const server = app.listen(0);
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'console-dist-'));
  await mkdir(join(dir, 'dist', 'assets'), { recursive: true });
  await writeFile(join(dir, 'dist', 'index.html'), '<!doctype html><title>console</title>');
  await writeFile(join(dir, 'dist', 'assets', 'index-abc123.js'), 'console.log(1)');
});
afterAll(async () => {
  for (const server of servers) server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('/console', () => {
  it('answers index.html for the app and its client routes, revalidated, with a CSP allowing no inline script', async () => {
    const base = await serve(join(dir, 'dist'));
    for (const path of ['/console', '/console/', '/console/keys', '/console/generations/gen_1']) {
      const response = await fetch(base + path);
      expect(response.status, path).toBe(200);
      expect(await response.text()).toContain('<title>console</title>');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    }
  });

  it('serves fingerprinted assets as immutable and answers 404 for an asset that is not there', async () => {
    const base = await serve(join(dir, 'dist'));
    const asset = await fetch(`${base}/console/assets/index-abc123.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect(asset.headers.get('content-type')).toContain('javascript');
    expect((await fetch(`${base}/console/assets/index-gone.js`)).status).toBe(404);
  });

  it('answers 503 saying to run npm run build when the console is not built', async () => {
    const base = await serve(join(dir, 'missing'));
    const response = await fetch(`${base}/console/overview`);
    expect(response.status).toBe(503);
    expect(await response.text()).toContain('npm run build');
  });
});
