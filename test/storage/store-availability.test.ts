// Admissions ask whether the store is up through one cached probe: answers are kept a while, concurrent askers share
// a probe, and a probe that never answers counts as down once its time is up.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { StoreUnavailableError } from '../../src/storage/object-store.ts';
import { storeAvailability } from '../../src/storage/store-availability.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('storeAvailability', () => {
  it('probes once for many askers, keeps an up answer 5 s and a down answer 1 s', async () => {
    vi.useFakeTimers();
    let up = true;
    const check = vi.fn(async () => {
      if (!up) throw new StoreUnavailableError();
    });
    const available = storeAvailability({ check });
    expect(await Promise.all([available(), available(), available()])).toEqual([true, true, true]);
    expect(check).toHaveBeenCalledTimes(1);
    up = false;
    vi.advanceTimersByTime(4_900);
    expect(await available()).toBe(true);
    vi.advanceTimersByTime(200);
    expect(await available()).toBe(false);
    expect(check).toHaveBeenCalledTimes(2);
    up = true;
    vi.advanceTimersByTime(900);
    expect(await available()).toBe(false);
    vi.advanceTimersByTime(200);
    expect(await available()).toBe(true);
    expect(check).toHaveBeenCalledTimes(3);
  });

  it('counts a probe that does not answer within 3 s as down, and aborts it', async () => {
    vi.useFakeTimers();
    let aborted = false;
    const available = storeAvailability({
      check: (signal) =>
        new Promise<void>((_resolve, reject) =>
          signal.addEventListener('abort', () => ((aborted = true), reject(signal.reason))),
        ),
    });
    const answer = available();
    await vi.advanceTimersByTimeAsync(3_000);
    expect(await answer).toBe(false);
    expect(aborted).toBe(true);
  });
});
