// The model's time across a provider call's attempts (activities/model-time.ts): a retry gets only what earlier
// attempts left, counted in heartbeat details; a step past the time is abandoned with a non-retryable ModelTimeout.
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { withinModelTime } from '../../activities/model-time.ts';

/** An attempt with a `budgetMs` start-to-close timeout, after earlier attempts ran `ranMs`; records its heartbeats. */
function attempt(budgetMs: number, ranMs?: number) {
  const environment = new MockActivityEnvironment({
    startToCloseTimeoutMs: budgetMs,
    heartbeatDetails: ranMs === undefined ? undefined : { ranMs },
  });
  const heartbeats: { ranMs: number }[] = [];
  environment.on('heartbeat', (details: { ranMs: number }) => heartbeats.push(details));
  return { heartbeats, run: <T>(step: (signal: AbortSignal) => Promise<T>) => environment.run(withinModelTime, step) };
}

const hangs = (signal: AbortSignal) =>
  new Promise<never>((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));

describe('withinModelTime', () => {
  it('an attempt after earlier ones used the whole time fails at once, without running the model', async () => {
    let ran = false;
    const { run } = attempt(2_000, 2_000);
    await expect(run(async () => (ran = true))).rejects.toMatchObject({ type: 'ModelTimeout', nonRetryable: true });
    expect(ran).toBe(false);
  });

  it('a retry gets only what is left: a model that hangs is abandoned then, its signal aborted', async () => {
    let aborted = false;
    const { run, heartbeats } = attempt(2_000, 1_500);
    const started = Date.now();
    await expect(
      run((signal) => {
        signal.addEventListener('abort', () => (aborted = true));
        return hangs(signal);
      }),
    ).rejects.toMatchObject({ type: 'ModelTimeout', nonRetryable: true });
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(450);
    expect(elapsed).toBeLessThan(1_500);
    expect(aborted).toBe(true);
    // The count the next attempt starts from: all of the time.
    expect(heartbeats.at(-1)!.ranMs).toBeGreaterThanOrEqual(1_950);
  });

  it('a step that ignores its signal is not waited for past the time', async () => {
    const { run } = attempt(500);
    const started = Date.now();
    await expect(run(() => new Promise((resolve) => setTimeout(resolve, 3_000)))).rejects.toMatchObject({
      type: 'ModelTimeout',
    });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('counts the running time in its heartbeats, once a second, from where earlier attempts left it', async () => {
    const { run, heartbeats } = attempt(10_000, 4_000);
    const result = await run(() => new Promise((resolve) => setTimeout(() => resolve('outputs'), 2_300)));
    expect(result).toBe('outputs');
    expect(heartbeats.length).toBe(2);
    expect(heartbeats[0]!.ranMs).toBeGreaterThanOrEqual(4_950);
    expect(heartbeats[1]!.ranMs).toBeGreaterThanOrEqual(5_950);
    expect(heartbeats[1]!.ranMs).toBeLessThan(7_000);
  });

  it('a quick success sends no heartbeat at all: no round trip to Temporal for it', async () => {
    const { run, heartbeats } = attempt(10_000);
    expect(await run(async () => 'outputs')).toBe('outputs');
    expect(heartbeats).toEqual([]);
  });

  it("a step's own failure passes through as it is (a transient error is retried with the time left)", async () => {
    const { run, heartbeats } = attempt(10_000);
    await expect(run(async () => Promise.reject(new Error('HTTP 503')))).rejects.toThrow('HTTP 503');
    expect(heartbeats.at(-1)!.ranMs).toBeLessThan(1_000);
  });
});
