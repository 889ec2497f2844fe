// A local server answering every path with a small PNG: the input of local/lanczos upscales in end-to-end tests.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll } from 'vitest';

/** Starts it for the file's tests; `url()` is its address once started. */
export function usePngInputServer(): { url: () => string } {
  let server: Server | undefined;
  beforeAll(async () => {
    const png = await sharp({ create: { width: 16, height: 10, channels: 3, background: '#3366cc' } })
      .png()
      .toBuffer();
    server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(png));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => server?.close());
  return { url: () => `http://127.0.0.1:${(server!.address() as AddressInfo).port}` };
}
