// Remembers signed callbacks already taken for as long as their signatures stay valid, so a captured one
// replayed in that window is answered but wakes nothing. Per process and bounded: the oldest entries go first.
import { createHash } from 'node:crypto';

export interface SeenMessages {
  /** True the first time this exact message is seen within the window. */
  firstSighting(...parts: (string | Buffer)[]): boolean;
}

export function createSeenMessages(options: {
  windowMs: number;
  maxEntries: number;
  now?: () => number;
}): SeenMessages {
  const now = options.now ?? Date.now;
  const seen = new Map<string, number>(); // insertion order = age order
  return {
    firstSighting(...parts) {
      const hash = createHash('sha256');
      for (const part of parts) hash.update(part).update('\0');
      const key = hash.digest('base64');
      const at = now();
      for (const [oldest, when] of seen) {
        if (at - when <= options.windowMs && seen.size < options.maxEntries) break;
        seen.delete(oldest);
      }
      if (seen.has(key)) return false;
      seen.set(key, at);
      return true;
    },
  };
}
