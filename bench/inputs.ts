// The benchmark's inputs: an 8×8 PNG served at any path, at once; `/held-…` paths wait until released, which keeps
// tasks running (for the reads of running tasks).
import { createServer } from 'node:http';
import sharp from 'sharp';
import type { Stop } from '../src/infra/processes/stops.ts';
import { closeServer, listenLocally } from '../harness/local-server.ts';

export async function startInputs(stops: Stop[]) {
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#123456' } })
    .png()
    .toBuffer();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const server = createServer((req, res) => {
    const send = () => res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    if (req.url?.startsWith('/held')) void released.then(send);
    else send();
  });
  const { url } = await listenLocally(server);
  stops.push({
    name: 'bench inputs',
    stop: () => closeServer(server),
  });
  return { url, release };
}
