// anvil as a child process we own: it starts in bounded time, keeps its state through a graceful stop, reports a
// start it cannot make, and stop() ends it within a bound.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil } from '../../src/infra/anvil.ts';
import { testLogger } from '../helpers/logger.ts';
import { alive } from '../../harness/processes.ts';

describe('startAnvil', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gateway-test-anvil-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('answers on the port it printed, with the chain id asked for, and stop() ends the process within a bound', async () => {
    const anvil = await startAnvil({ chainId: 8453, log: testLogger });
    expect(anvil.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const client = createPublicClient({ transport: http(anvil.rpcUrl), cacheTime: 0 });
    expect(await client.getChainId()).toBe(8453);
    expect(alive(anvil.pid)).toBe(true);

    const started = Date.now();
    await anvil.stop();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(alive(anvil.pid)).toBe(false);
    await anvil.stop(); // a second stop is a no-op
  });

  it('writes its state file on a graceful stop (creating its directory) and loads it on the next start', async () => {
    const stateFile = join(dir, 'nested', 'anvil', 'state.json');
    const first = await startAnvil({ stateFile, log: testLogger });
    const client = createPublicClient({ transport: http(first.rpcUrl), cacheTime: 0 });
    await client.request({ method: 'anvil_mine' as never, params: ['0x5'] as never });
    await first.stop();
    expect(JSON.parse(await readFile(stateFile, 'utf8'))).toHaveProperty('block');

    const second = await startAnvil({ stateFile, log: testLogger });
    try {
      const again = createPublicClient({ transport: http(second.rpcUrl), cacheTime: 0 });
      expect(await again.getBlockNumber()).toBe(5n);
    } finally {
      await second.stop();
    }
  });

  it('rejects with anvil’s own reason when it cannot start (a truncated state file)', async () => {
    const stateFile = join(dir, 'truncated.json');
    await writeFile(stateFile, '{"block":{"number":');
    await expect(startAnvil({ stateFile, log: testLogger })).rejects.toThrow(
      /anvil exited during start-up .*failed to parse json file/s,
    );
  });

  it('bounds its start-up time and leaves no process behind when the bound passes', async () => {
    await expect(startAnvil({ startTimeoutMs: 1, log: testLogger })).rejects.toThrow(
      /anvil did not start listening within 1 ms/,
    );
  });
});
