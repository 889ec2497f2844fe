// Links to our files are stored (a task's outputs) or made without a request, so they name the default base
// (PUBLIC_BASE_URL, else localhost). Where a request came to another of our own addresses (127.0.0.1 in development),
// its answer names them there: a page is linked at its own origin, which its Content-Security-Policy allows.
import type { StreamedEvent } from '../use-cases/generations/events.ts';

/** `value` with every string that starts with `from` starting with `to` instead (JSON values only). */
export function relinked<T>(value: T, from: string, to: string): T {
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') return item.startsWith(from) ? to + item.slice(from.length) : item;
    if (Array.isArray(item)) return item.map(walk);
    if (item && typeof item === 'object' && Object.getPrototypeOf(item) === Object.prototype)
      return Object.fromEntries(Object.entries(item).map(([key, entry]) => [key, walk(entry)]));
    return item;
  };
  return walk(value) as T;
}

export async function* relinkedEvents(
  events: AsyncIterable<StreamedEvent> | Iterable<StreamedEvent>,
  from: string,
  to: string,
): AsyncIterable<StreamedEvent> {
  for await (const event of events) yield { ...event, data: relinked(event.data, from, to) };
}
