// A local server answering with a small PNG: the input of local-engine tasks in end-to-end tests. A test may answer
// some paths its own way (hold them, 404 them, answer late).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import sharp from 'sharp';
import { afterAll, beforeAll } from 'vitest';
import { closeServer, listenLocally } from '../../harness/local-server.ts';

export interface PngInputOptions {
  width?: number;
  height?: number;
  /** Answers a request itself; by default every path gets the PNG at once. */
  respond?: (req: IncomingMessage, res: ServerResponse, sendPng: () => void) => void;
}

/** Starts it for the file's tests; `url()` is its address once started. */
export function usePngInputServer({ width = 16, height = 10, respond }: PngInputOptions = {}): { url: () => string } {
  let server: Server | undefined;
  let url: string | undefined;
  beforeAll(async () => {
    const png = await sharp({ create: { width, height, channels: 3, background: '#3366cc' } })
      .png()
      .toBuffer();
    server = createServer((req, res) => {
      const sendPng = () => res.writeHead(200, { 'content-type': 'image/png' }).end(png);
      if (respond) respond(req, res, sendPng);
      else sendPng();
    });
    ({ url } = await listenLocally(server));
  });
  afterAll(() => server && closeServer(server));
  return { url: () => url! };
}
