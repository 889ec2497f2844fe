// Input downloads: limits, refusals, and the private-network guard (the guard is exercised with names that
// resolve to loopback, as a rebinding attacker's would, and with literal addresses in every form).
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchInput, InputFetchError } from '../../src/providers/fetch-input.ts';
import { closeServer, listenLocally } from '../../harness/local-server.ts';

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/ok') res.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
    else if (req.url === '/big') res.writeHead(200).end(Buffer.alloc(2048));
    else if (req.url === '/redirect') res.writeHead(302, { location: '/ok' }).end();
    else if (req.url === '/slow') setTimeout(() => res.writeHead(200).end('late'), 2_000);
    else if (req.url === '/never')
      return; // answered by closeServer
    else res.writeHead(404).end();
  });
  ({ port } = await listenLocally(server));
});
afterAll(() => closeServer(server));

const open = { maxBytes: 1024, timeoutMs: 1_000, allowPrivate: true };
const guarded = { ...open, allowPrivate: false };

describe('fetchInput', () => {
  it('downloads within the limits', async () => {
    const { data, contentType } = await fetchInput(`http://127.0.0.1:${port}/ok`, open);
    expect(data.toString()).toBe('hello');
    expect(contentType).toBe('text/plain');
  });

  it.each([
    ['/big', /is larger than 1024 bytes/],
    ['/redirect', /HTTP 302/],
    ['/missing', /HTTP 404/],
    ['/slow', /timed out/],
  ])('refuses %s', async (path, message) => {
    await expect(fetchInput(`http://127.0.0.1:${port}${path}`, open)).rejects.toThrow(message);
  });

  it('stops a download when its signal aborts (the task was cancelled), saying it was abandoned', async () => {
    const controller = new AbortController();
    const download = fetchInput(`http://127.0.0.1:${port}/slow`, {
      ...open,
      timeoutMs: 30_000,
      signal: controller.signal,
    });
    controller.abort();
    await expect(download).rejects.toThrow(/\/slow: abandoned$/);
  });

  it('refuses other schemes', async () => {
    await expect(fetchInput('file:///etc/passwd', open)).rejects.toThrow(InputFetchError);
  });

  it.each(['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]', '169.254.169.254', '10.1.2.3', '[fe80::1]'])(
    'guards literal %s',
    async (host) => {
      await expect(fetchInput(`http://${host}:${port}/ok`, guarded)).rejects.toThrow(
        /^\S+ is a private address; set ALLOW_PRIVATE_INPUT_URLS=true to allow it$/,
      );
    },
  );

  it('guards names that resolve to private addresses, at connection time', async () => {
    await expect(fetchInput(`http://localhost:${port}/ok`, guarded)).rejects.toThrow(
      'localhost is a private address; set ALLOW_PRIVATE_INPUT_URLS=true to allow it',
    );
  });
});

describe('fetchInput and the input host', () => {
  // A host that serves one connection at a time (as a single-threaded server does): the next waits until it closes.
  let oneAtATime: NetServer;
  let oneAtATimeUrl: string;
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    const app = createServer((req, res) => {
      // A 404 with a body too large to be buffered whole, as an error page may be: only reading or cancelling it
      // lets the connection go.
      if (req.url === '/missing') res.writeHead(404, { 'content-type': 'text/html' }).end(Buffer.alloc(1 << 20, 120));
      else res.writeHead(200, { 'content-type': 'image/png' }).end('png');
    });
    const queue: Socket[] = [];
    let serving = false;
    const next = () => {
      const socket = queue.shift();
      serving = socket !== undefined;
      if (!socket) return;
      socket.on('close', next);
      app.emit('connection', socket);
      socket.resume();
    };
    oneAtATime = createNetServer({ pauseOnConnect: true }, (socket) => {
      sockets.add(socket);
      queue.push(socket);
      if (!serving) next();
    });
    await new Promise<void>((resolve) => oneAtATime.listen(0, '127.0.0.1', resolve));
    oneAtATimeUrl = `http://127.0.0.1:${(oneAtATime.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => oneAtATime.close(resolve));
  });

  it('lets a refused answer go: a download after a 404 from the same host is served', async () => {
    const options = { ...open, maxBytes: 1 << 20, timeoutMs: 5_000 };
    await expect(fetchInput(`${oneAtATimeUrl}/missing`, options)).rejects.toThrow(/HTTP 404$/);
    const { data } = await fetchInput(`${oneAtATimeUrl}/photo.png`, options);
    expect(data.toString()).toBe('png');
  });

  it('times out even when garbage collection runs while it waits (a task that passes a signal)', async () => {
    // Node 20 lets an AbortSignal.timeout() held only by AbortSignal.any() be collected before it fires.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const started = Date.now();
    const download = fetchInput(`http://127.0.0.1:${port}/never`, {
      ...open,
      timeoutMs: 500,
      signal: new AbortController().signal,
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    gc();
    const outcome = await Promise.race([
      download.then(
        () => 'downloaded',
        (error: Error) => error.message,
      ),
      new Promise((resolve) => setTimeout(() => resolve('still waiting after 5 s'), 5_000)),
    ]);
    expect(outcome).toMatch(/\/never: timed out$/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
