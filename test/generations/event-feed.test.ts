// The event streams' LISTEN connection against a database that accepts connections and never answers: a stream's
// subscription is refused as ours (503), within the connect timeout, instead of holding its request.
import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceUnavailableError } from '../../src/domain/errors.ts';
import { createTaskEventFeed } from '../../src/generations/events/event-feed.ts';

const sockets: Socket[] = [];
const silent = createServer((socket) => sockets.push(socket));
let port = 0;
beforeAll(async () => {
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  port = (silent.address() as { port: number }).port;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

describe('the task event feed', () => {
  it('refuses a subscription with 503 when the database never answers, within seconds', async () => {
    const feed = createTaskEventFeed(`postgresql://gateway:gateway@127.0.0.1:${port}/gateway`);
    const started = Date.now();
    await expect(feed.subscribe('acc_silent', () => {})).rejects.toBeInstanceOf(ServiceUnavailableError);
    // Held, it would wait for ever; answered, within the 5 s connect timeout (wide margin for a loaded machine).
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 60_000);
});
