// Server-sent events read with fetch (EventSource cannot send the bearer key), resumed with Last-Event-ID after a drop.
import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** Opens the stream, resuming after `lastEventId` when given; the answer's body is read as it arrives. */
export type OpenStream = (lastEventId: string | undefined, signal: AbortSignal) => Promise<Response>;

export interface FollowOptions {
  /** Called for each event, in order, once each (a resumed stream starts after the last one seen). */
  onEvent: (message: EventSourceMessage) => void;
  /** Called with true once the stream is open, false while it is being reopened. */
  onConnected?: (connected: boolean) => void;
  signal: AbortSignal;
}

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/**
 * Follows the stream until the server has nothing more to send (204, as a finished task's stream answers a resume) or
 * `signal` aborts. A dropped connection or a 5xx is reopened after the server's `retry:` (1 s by default); a 4xx
 * (the key revoked, the task gone) ends it with that error.
 */
export async function followEvents(open: OpenStream, options: FollowOptions): Promise<void> {
  const { onEvent, onConnected, signal } = options;
  let lastEventId: string | undefined;
  let retryMs = 1_000;
  const parser = createParser({
    onEvent: (message) => {
      if (message.id) lastEventId = message.id;
      onEvent(message);
    },
    onRetry: (ms) => (retryMs = ms),
  });
  while (!signal.aborted) {
    try {
      const response = await open(lastEventId, signal);
      if (response.status === 204) return;
      if (response.status >= 400 && response.status < 500) throw new StreamRefused(response.status);
      if (!response.ok || !response.body) throw new Error(`The event stream answered ${response.status}`);
      onConnected?.(true);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) parser.feed(chunk.value);
      // Ended: reopened at once, after the last event seen; a task's stream then answers 204 when it had ended.
      parser.reset();
    } catch (error) {
      if (error instanceof StreamRefused || signal.aborted) throw error;
      parser.reset();
      onConnected?.(false);
      await pause(retryMs, signal);
    }
  }
}

/** The server refused the stream (4xx): opening it again would be refused again. */
export class StreamRefused extends Error {
  constructor(readonly status: number) {
    super(`The event stream was refused (${status})`);
  }
}
