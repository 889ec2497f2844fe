// Writes a stream of unknown honesty into a file, counting as it goes: past the limit it stops at once, so neither
// memory nor disk holds more than the limit whatever the sender claims.
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';

/** The bytes written; `refuse()`'s error once `limit` is passed (the rest of `source` is left unread). */
export async function writeLimited(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  path: string,
  limit: number,
  refuse: () => Error,
): Promise<number> {
  const sink = createWriteStream(path);
  let size = 0;
  try {
    for await (const chunk of source) {
      size += chunk.length;
      if (size > limit) throw refuse();
      if (!sink.write(chunk)) await once(sink, 'drain');
    }
  } finally {
    sink.end();
    await finished(sink);
  }
  return size;
}
