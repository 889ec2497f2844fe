// Writing an event stream (text/event-stream, the WHATWG Server-Sent Events format): one block per event with its
// `id:` (what a reconnecting client sends back as Last-Event-ID), and a comment line while idle, so proxies and load
// balancers that close quiet connections keep it open. The stream ends with its events or when the caller goes.
import type { Response } from 'express';
import type { StreamedEvent } from '../../use-cases/generations/events.ts';

/** What EventSource waits before reconnecting after the stream drops. */
const reconnectMs = 3_000;

const block = (event: StreamedEvent) =>
  `${event.id === undefined ? '' : `id: ${event.id}\n`}event: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`;

/** Resolves once the socket can take more (a slow reader holds the stream, not our memory). */
function written(res: Response, chunk: string): Promise<void> {
  if (res.write(chunk)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done).once('close', done);
  });
}

export async function writeEventStream(
  res: Response,
  events: AsyncIterable<StreamedEvent> | Iterable<StreamedEvent>,
  { heartbeatMs, headers = {} }: { heartbeatMs: number; headers?: Record<string, string> },
): Promise<void> {
  res.status(200).set({
    ...headers,
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    // nginx buffers responses unless told not to; Caddy (the cluster's, flush_interval -1) and others pass chunks on.
    'X-Accel-Buffering': 'no',
  });
  // HEAD asks for the headers alone: a stream that never ends would hold it open.
  if (res.req.method === 'HEAD') {
    res.end();
    return;
  }
  res.flushHeaders();
  res.write(`retry: ${reconnectMs}\n\n`);
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), heartbeatMs);
  try {
    for await (const event of events) {
      if (res.destroyed) break;
      await written(res, block(event));
    }
  } catch (error) {
    // Headers are gone: the stream just ends, and the client resumes from its Last-Event-ID.
    res.req.log.warn({ err: error }, 'event stream ended by an error');
  } finally {
    clearInterval(heartbeat);
    res.end();
  }
}
