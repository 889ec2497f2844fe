// At shutdown, a request still pending when the drain time is up is answered 503 service_unavailable with
// Retry-After (its handler's late answer goes nowhere, quietly); one that finishes in time keeps its own answer.
import { once } from 'node:events';
import type { Server } from 'node:http';
import express from 'express';
import { pinoHttp } from 'pino-http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorHandler } from '../../src/api/middleware/errors.ts';
import { createShutdownGate, shutdownSignal } from '../../src/api/shutdown-gate.ts';
import { testLogger } from '../helpers/logger.ts';

let server: Server | undefined;

afterEach(() => {
  server?.closeAllConnections();
  server?.close();
});

async function serve(routes: (app: express.Express) => void) {
  const gate = createShutdownGate();
  const app = express();
  app.use(pinoHttp({ logger: testLogger }));
  app.use(gate.middleware);
  routes(app);
  app.use(errorHandler);
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return { gate, url: (path: string) => `http://127.0.0.1:${port}${path}` };
}

describe('shutdown gate', () => {
  it('answers a request still pending after the drain time 503, and the server closes', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const lateAnswer = vi.fn();
    const { gate, url } = await serve((app) =>
      app.post('/slow', async (_req, res) => {
        await released;
        lateAnswer();
        res.status(201).set('X-Late', 'yes').json({ done: true });
      }),
    );
    const pending = fetch(url('/slow'), { method: 'POST' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    const closed = gate.close(server!, 300);
    const response = await pending;
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(response.headers.get('connection')).toBe('close');
    expect(await response.json()).toEqual({
      error: 'service_unavailable',
      message: 'The service is shutting down; nothing more is done for this request. Retry shortly.',
    });
    await closed;
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(server!.listening).toBe(false);
    // The handler finishing later writes nowhere and throws nothing out.
    release();
    await vi.waitFor(() => expect(lateAnswer).toHaveBeenCalled());
  });

  it('lets a request that finishes within the drain time keep its own answer', async () => {
    const { gate, url } = await serve((app) =>
      app.get('/soon', async (_req, res) => {
        await new Promise((resolve) => setTimeout(resolve, 200));
        res.json({ ok: true });
      }),
    );
    const pending = fetch(url('/soon'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closed = gate.close(server!, 5_000);
    const response = await pending;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    const started = Date.now();
    await closed;
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it('ends a handler that is only waiting (Prefer: wait) as the close begins, so it answers itself', async () => {
    const { gate, url } = await serve((app) =>
      app.get('/waiting', async (_req, res) => {
        const signal = shutdownSignal(res)!;
        await new Promise((resolve) => signal.addEventListener('abort', resolve));
        res.status(202).json({ waited: 'until shutdown' });
      }),
    );
    const pending = fetch(url('/waiting'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    const closed = gate.close(server!, 5_000);
    const response = await pending;
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ waited: 'until shutdown' });
    await closed;
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it('closes at once with nothing pending', async () => {
    const { gate } = await serve(() => undefined);
    const started = Date.now();
    await gate.close(server!, 5_000);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
