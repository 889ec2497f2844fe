// Input downloads: limits, refusals, and the private-network guard (the guard is exercised with names that
// resolve to loopback, as a rebinding attacker's would, and with literal addresses in every form).
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchInput, InputFetchError } from '../../src/providers/fetch-input.ts';
import { closeServer, listenLocally } from '../helpers/local-server.ts';

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/ok') res.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
    else if (req.url === '/big') res.writeHead(200).end(Buffer.alloc(2048));
    else if (req.url === '/redirect') res.writeHead(302, { location: '/ok' }).end();
    else if (req.url === '/slow') setTimeout(() => res.writeHead(200).end('late'), 2_000);
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
