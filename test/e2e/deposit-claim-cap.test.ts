// An account's claims of transaction hashes the chain does not know (yet) are capped: each is a look-up the workers
// run for DEPOSIT_RECEIPT_WAIT_SECONDS, and a random hash is one that never ends in a deposit. Real stack: anvil, the
// deposit workflow on the Temporal dev server, the claims in PostgreSQL.
import { keccak256 } from 'viem';
import { describe, expect, it } from 'vitest';
import { useLocalChain } from '../helpers/chain.ts';
import { useGateway } from '../helpers/gateway.ts';
import { call, type RegisteredAgent, registerAgent } from '../helpers/http.ts';

const chain = useLocalChain();
const receiptWaitSeconds = 15;
const stack = useGateway(() => ({
  chains: { enabled: ['base'], base: { rpcUrl: chain.rpcUrl, usdcAddress: chain.usdcAddress } },
  // Claims answer at once (still looking), so the cap is reached well within the look-up's window.
  deposits: { waitSeconds: 0, receiptWaitSeconds, pendingClaimsPerAccount: 3 },
}));

const randomHash = () => keccak256(`0x${crypto.randomUUID().replaceAll('-', '')}`);
const claim = (agent: RegisteredAgent, txHash: string) =>
  call(stack, 'POST', '/agents/deposit', { key: agent.api_key, body: { chain: 'base', tx_hash: txHash } });

describe('POST /agents/deposit of hashes not yet found', () => {
  it('refuses one past the per-account cap with 429 and Retry-After, until the look-ups are over', async () => {
    const agent = await registerAgent(stack);
    const other = await registerAgent(stack);
    const pending = [randomHash(), randomHash(), randomHash()];
    for (const hash of pending)
      expect(await claim(agent, hash)).toMatchObject({ status: 200, body: { success: false } });
    // Claims count in a rate bucket of their own, far smaller than reads'.
    const claimsPerMinute = stack.config.rateLimits.depositClaims.free;
    expect(claimsPerMinute).toBeLessThan(stack.config.rateLimits.reads.free);
    expect((await claim(agent, pending[1]!)).headers.get('ratelimit-limit')).toBe(String(claimsPerMinute));

    const refused = await claim(agent, randomHash());
    expect(refused).toMatchObject({ status: 429, body: { error: 'rate_limited', message: expect.any(String) } });
    expect(refused.body.message).toMatch(/at most 3 transactions not yet found/);
    expect(refused.headers.get('retry-after')).toBe(String(receiptWaitSeconds));
    // Its own pending hash may be claimed again; another account has a cap of its own.
    expect((await claim(agent, pending[0]!)).status).toBe(200);
    expect((await claim(other, randomHash())).status).toBe(200);

    // Once their look-ups are over (DEPOSIT_RECEIPT_WAIT_SECONDS after the claim), they no longer count.
    await new Promise((resolve) => setTimeout(resolve, receiptWaitSeconds * 1000));
    expect((await claim(agent, randomHash())).status).toBe(200);
  }, 120_000);
});
