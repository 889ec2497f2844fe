// A local server answering every path with a small PNG: the input of local/lanczos upscales in end-to-end tests.
import { createServer, type Server } from 'node:http';
import sharp from 'sharp';
import { afterAll, beforeAll } from 'vitest';
import { listenLocally } from './local-server.ts';

/** Starts it for the file's tests; `url()` is its address once started. */
export function usePngInputServer(): { url: () => string } {
  let server: Server | undefined;
  let url: string | undefined;
  beforeAll(async () => {
    const png = await sharp({ create: { width: 16, height: 10, channels: 3, background: '#3366cc' } })
      .png()
      .toBuffer();
    server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(png));
    ({ url } = await listenLocally(server));
  });
  afterAll(() => server?.close());
  return { url: () => url! };
}
