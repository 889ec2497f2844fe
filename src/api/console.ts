// The console (console/, built by `npm run build`) at /console: fingerprinted assets cached for good, index.html
// revalidated, every client route answered with index.html, and a CSP that allows no inline script and no other origin.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import express, { type Response, Router } from 'express';

/** The checkout's root: this file runs from src/api (tsx) or dist/src/api (the build), so look upward for console/. */
function consoleDistDir(): string {
  for (let dir = import.meta.dirname; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'console', 'package.json'))) return join(dir, 'console', 'dist');
  }
  return join(import.meta.dirname, '..', '..', 'console', 'dist');
}

// The 3D viewer (@google/model-viewer, pinned) compiles WebAssembly decoders and puts one fixed <style> in its shadow
// DOM (lib/template.js): WebAssembly and that one style, by its hash, are allowed; scripts stay this origin's files
// (no eval, nothing inline). test/console/model-viewer.test.ts fails, naming the new hash, if an upgrade changes it.
const modelViewerStyle = "'sha256-PXtZZkJMMyc18o/DN1ZEFOJ2qEGq95IQbVaJFMOXOb0='";
const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  `style-src 'self' ${modelViewerStyle}`,
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function secure(res: Response): void {
  res.set({
    'Content-Security-Policy': contentSecurityPolicy,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  });
}

const notBuiltPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Console not built</title></head>
<body><h1>The console is not built</h1><p>Run <code>npm run build</code> in the gateway's checkout, then reload.</p></body></html>`;

export function consoleRouter(distDir = consoleDistDir()): Router {
  const router = Router();
  const indexFile = join(distDir, 'index.html');
  router.use((_req, res, next) => {
    secure(res);
    next();
  });
  router.use(
    '/assets',
    express.static(join(distDir, 'assets'), { immutable: true, maxAge: '365d', index: false, fallthrough: false }),
  );
  // Checked on each request: a build made while the service runs is served without a restart.
  router.get(/.*/, (_req, res) => {
    if (!existsSync(indexFile)) {
      res.status(503).type('html').set('Cache-Control', 'no-store').send(notBuiltPage);
      return;
    }
    res.set('Cache-Control', 'no-cache').sendFile(indexFile);
  });
  return router;
}
