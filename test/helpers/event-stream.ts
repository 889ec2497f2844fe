// A Server-Sent Events client for tests: opens a stream with fetch, parses its blocks as EventSource does (`id:`,
// `event:`, `data:`, comment lines), and lets a test take events one at a time or read until the server closes.
import { freshClientAddress, type Server } from './http.ts';

export interface StreamEvent {
  id?: string;
  event: string;
  data: any;
}

export interface OpenedEventStream {
  status: number;
  headers: Headers;
  /** The body of a refusal (JSON), when the stream did not open. */
  body?: any;
  /** The next event, waiting at most `timeoutMs`; rejects if the stream closes first. */
  next(timeoutMs?: number): Promise<StreamEvent>;
  /** Every event until the server closes the stream. */
  rest(timeoutMs?: number): Promise<StreamEvent[]>;
  /** Comment lines seen so far (heartbeats). */
  comments: string[];
  closed: Promise<void>;
  close(): void;
}

/** GET an event stream (path relative to /api/v1) with an optional key, Last-Event-ID and client address. */
export async function openEventStream(
  server: Server,
  path: string,
  { key, lastEventId, from }: { key?: string; lastEventId?: string; from?: string } = {},
): Promise<OpenedEventStream> {
  const controller = new AbortController();
  const headers: Record<string, string> = {
    accept: 'text/event-stream',
    'x-forwarded-for': from ?? freshClientAddress(),
  };
  if (key) headers.authorization = `Bearer ${key}`;
  if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
  const response = await fetch(`${server.app.url}/api/v1${path}`, { headers, signal: controller.signal });
  const events: StreamEvent[] = [];
  const comments: string[] = [];
  let waiting: (() => void) | undefined;
  let ended = false;
  const isStream = response.headers.get('content-type')?.startsWith('text/event-stream') ?? false;
  const body = !isStream && response.status !== 204 ? await response.json() : undefined;

  const closed = (async () => {
    if (!isStream || !response.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event: Partial<StreamEvent> & { dataLines: string[] } = { dataLines: [] };
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('id: ')) event.id = line.slice(4);
            else if (line.startsWith('event: ')) event.event = line.slice(7);
            else if (line.startsWith('data: ')) event.dataLines.push(line.slice(6));
          }
          if (event.dataLines.length > 0) {
            events.push({
              id: event.id,
              event: event.event ?? 'message',
              data: JSON.parse(event.dataLines.join('\n')),
            });
          }
          waiting?.();
        }
      }
    } catch {
      // closed by the test
    } finally {
      ended = true;
      waiting?.();
    }
  })();

  let taken = 0;
  const next = async (timeoutMs = 30_000): Promise<StreamEvent> => {
    const deadline = Date.now() + timeoutMs;
    while (taken >= events.length) {
      if (ended) throw new Error(`the stream closed after ${taken} events`);
      if (Date.now() > deadline) throw new Error(`no event within ${timeoutMs} ms (after ${taken} events)`);
      await new Promise<void>((resolve) => {
        waiting = resolve;
        setTimeout(resolve, 100);
      });
    }
    return events[taken++]!;
  };
  return {
    status: response.status,
    headers: response.headers,
    body,
    next,
    comments,
    closed,
    async rest(timeoutMs = 60_000) {
      const timer = setTimeout(() => controller.abort(), timeoutMs);
      await closed;
      clearTimeout(timer);
      if (!ended || controller.signal.aborted) throw new Error(`the stream was still open after ${timeoutMs} ms`);
      const remaining = events.slice(taken);
      taken = events.length;
      return remaining;
    },
    close: () => controller.abort(),
  };
}
