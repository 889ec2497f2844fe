// deadline(): a time limit that fires even when garbage collection runs while it waits (on Node 20 an
// AbortSignal.timeout() held only by AbortSignal.any() may not), and that names its own expiry.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { deadline, withDeadline } from '../../src/net/deadline.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const abortedWithin = (signal: AbortSignal, ms: number) =>
  new Promise<boolean>((resolve) => {
    const giveUp = setTimeout(() => resolve(false), ms);
    signal.addEventListener('abort', () => {
      clearTimeout(giveUp);
      resolve(true);
    });
  });

describe('deadline', () => {
  it('aborts with a TimeoutError when the time is up, with another signal beside it, through a garbage collection', async () => {
    const other = new AbortController();
    const limit = deadline(200, other.signal);
    const aborted = abortedWithin(limit.signal, 5_000);
    gc();
    expect(await aborted).toBe(true);
    expect(limit.expired()).toBe(true);
    expect((limit.signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it('aborts with the other signal, which is not an expiry', () => {
    const other = new AbortController();
    const limit = deadline(60_000, other.signal);
    other.abort();
    expect(limit.signal.aborted).toBe(true);
    expect(limit.expired()).toBe(false);
    limit.clear();
  });

  it('withDeadline stops its timer once the step ends', async () => {
    let seen: AbortSignal | undefined;
    expect(await withDeadline(100, [undefined], async (signal) => ((seen = signal), 'done'))).toBe('done');
    expect(await abortedWithin(seen!, 400)).toBe(false);
  });
});
