// The local-server helpers the tests' own servers use: listening on loopback, and closing even with a request held.
import { createServer } from 'node:http';
import { expect, it } from 'vitest';
import { closeServer, listenLocally } from '../../harness/local-server.ts';

it('listens on 127.0.0.1 and answers the bound port and the URL that reaches it', async () => {
  const server = createServer((_req, res) => res.end('here'));
  const { port, url } = await listenLocally(server);
  try {
    expect(url).toBe(`http://127.0.0.1:${port}`);
    expect(server.address()).toEqual({ address: '127.0.0.1', family: 'IPv4', port });
    expect(await (await fetch(url)).text()).toBe('here');
  } finally {
    await closeServer(server);
  }
});

it('rejects when the chosen port is taken, instead of waiting forever', async () => {
  const first = createServer();
  const { port } = await listenLocally(first);
  try {
    await expect(listenLocally(createServer(), port)).rejects.toMatchObject({ code: 'EADDRINUSE' });
  } finally {
    await closeServer(first);
  }
});

it('closes a server holding a request it never answers, and the held request fails', async () => {
  let held!: () => void;
  const arrived = new Promise<void>((resolve) => (held = resolve));
  const server = createServer(() => held());
  const { url } = await listenLocally(server);
  const request = fetch(url);
  await arrived;
  await closeServer(server);
  expect(server.listening).toBe(false);
  await expect(request).rejects.toThrow(TypeError);
});

it('resolves for a server that never listened', async () => {
  await expect(closeServer(createServer())).resolves.toBeUndefined();
});
