// An x402 payer on the local chain of `npm start` or `npm run cluster`, as a newcomer makes one, and the wait for the
// task it paid for: polled with the task's access token until it has ended and, when completed, its payment settled.
import { expect } from 'vitest';
import type { Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { runGenctl } from './genctl.ts';

/** A payer with test USDC from `genctl chain fund`, as the banner says (and no ETH: the facilitator pays the gas). */
export async function fundedPayer(dataDir: string, amount = '5'): Promise<Hex> {
  const key = generatePrivateKey();
  const funded = await runGenctl({ DATA_DIR: dataDir }, [
    ...['chain', 'fund', privateKeyToAccount(key).address, '--amount', amount],
  ]);
  expect(funded.code, funded.stderr).toBe(0);
  return key;
}

/** Polls the task at `baseUrl` (`http://host:port`) with its access token until it has ended. */
export async function paidTaskEnded(baseUrl: string, created: { poll_url: string; access_token: string }) {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const response = await fetch(`${baseUrl}${created.poll_url}`, {
      headers: { authorization: `Bearer ${created.access_token}` },
    });
    const task = (await response.json()) as { status: string; payment?: { status: string } };
    const settled = task.status !== 'completed' || task.payment?.status === 'settled';
    if (['completed', 'failed'].includes(task.status) && settled) return { response, task: task as any };
    if (Date.now() > deadline) throw new Error(`task still ${task.status}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
