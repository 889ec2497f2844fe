// Interactive reference at /docs that works offline: Scalar's standalone bundle is served by us, and its
// agent and default fonts (which call Scalar's hosts) are off. It shares the console's origin, so it gets a CSP of
// its own: scripts are this origin's files and the one inline start-up script, by a nonce made per request.
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiReference } from '@scalar/express-api-reference';
import express, { type RequestHandler, type Response, Router } from 'express';

// The package exports no path to its browser bundle: find it beside the main entry (dist/index.js).
const scalarBrowserDir = join(dirname(fileURLToPath(import.meta.resolve('@scalar/api-reference'))), 'browser');

type ReferenceConfiguration = Parameters<typeof apiReference>[0];

/**
 * What Scalar needs and nothing more: its inline styles (Vue injects them), data: images and fonts, and requests to
 * this origin (the OpenAPI document and "Test request"). No other origin is reachable from the page.
 */
export const docsContentSecurityPolicy = (nonce: string) =>
  [
    "default-src 'none'",
    `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');

function secure(res: Response, nonce = ''): void {
  res.set({
    'Content-Security-Policy': docsContentSecurityPolicy(nonce),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  });
}

export function docsRouter(openApiUrl: string): Router {
  const router = Router();
  const configuration = {
    url: openApiUrl,
    cdn: '/docs/assets/standalone.js',
    pageTitle: 'Generation Gateway API',
    agent: { disabled: true },
    mcp: { disabled: true },
    showDeveloperTools: 'never',
    showToolbar: 'never',
    withDefaultFonts: false,
    telemetry: false,
  } as ReferenceConfiguration;
  router.use('/docs/assets', (_req, res, next) => {
    secure(res);
    next();
  });
  router.use('/docs/assets', express.static(scalarBrowserDir, { immutable: true, maxAge: '1d', index: false }));
  const page: RequestHandler<never, string> = (req, res, next) => {
    const nonce = randomBytes(16).toString('base64');
    secure(res, nonce);
    return apiReference({ ...configuration, nonce } as ReferenceConfiguration)(req, res, next);
  };
  router.get('/docs', page);
  return router;
}
