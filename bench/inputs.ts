// The benchmark's inputs: an 8×8 PNG served at any path, at once; `/held-…` paths wait until released, which keeps
// tasks running (for the reads of running tasks).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import type { Stop } from '../src/runtime.ts';

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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stops.push({
    name: 'bench inputs',
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, release };
}
