// Interactive reference at /docs that works offline: Scalar's standalone bundle is served by us, and its
// agent and default fonts (which call Scalar's hosts) are off.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiReference } from '@scalar/express-api-reference';
import express, { Router } from 'express';

// The package exports no path to its browser bundle: find it beside the main entry (dist/index.js).
const scalarBrowserDir = join(dirname(fileURLToPath(import.meta.resolve('@scalar/api-reference'))), 'browser');

export function docsRouter(openApiUrl: string): Router {
  const router = Router();
  router.use('/docs/assets', express.static(scalarBrowserDir, { immutable: true, maxAge: '1d', index: false }));
  router.get(
    '/docs',
    apiReference({
      url: openApiUrl,
      cdn: '/docs/assets/standalone.js',
      pageTitle: 'Generation Gateway API',
      agent: { disabled: true },
      mcp: { disabled: true },
      showDeveloperTools: 'never',
      showToolbar: 'never',
      withDefaultFonts: false,
      telemetry: false,
    } as Parameters<typeof apiReference>[0]),
  );
  return router;
}
