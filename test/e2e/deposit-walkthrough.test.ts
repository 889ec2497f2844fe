// The deposit walk-through in docs/deposits.md, run as a newcomer runs it after the README's: a second agent from
// the same machine (no second trial credit) deposits 5 USDC on the local chain. The balances the page prints are
// the ones the gateway answers (issue 25, point 13: the page promised 6.00, which its own trial rule made impossible).
import { readFileSync } from 'node:fs';
import type { Address } from 'viem';
import { describe, expect, it } from 'vitest';
import { anvilDevAccount } from '../../src/chain/local-chain.ts';
import { useLocalChain } from '../helpers/chain.ts';
import { useGateway } from '../helpers/gateway.ts';
import { call, registerAgent } from '../helpers/http.ts';

const chain = useLocalChain();
const stack = useGateway(() => ({
  server: { trustProxy: 'loopback' },
  chains: { enabled: ['base'], base: { rpcUrl: chain.rpcUrl, usdcAddress: chain.usdcAddress, confirmations: 2 } },
  deposits: { waitSeconds: 10 },
}));

/** The value of `field` in the walk-through's printed answers (the `# {…}` lines). */
function printed(field: string): string {
  const page = readFileSync(new URL('../../docs/deposits.md', import.meta.url), 'utf8');
  const match = new RegExp(`^# \\{.*"${field}":"([\\d.]+)"`, 'm').exec(page);
  if (!match) throw new Error(`docs/deposits.md prints no "${field}"`);
  return match[1]!;
}

describe('docs/deposits.md walk-through', () => {
  it('prints the balances a second agent from one machine really has after a 5 USDC deposit', async () => {
    const from = '198.19.7.1';
    // The README's walk-through registered the first agent from this machine: it took the trial credit.
    const first = await registerAgent(stack, { from, body: { agent_name: 'demo' } });
    expect(first.trial_credit_applied).toBe(true);
    const depositor = await registerAgent(stack, { from, body: { agent_name: 'depositor' } });
    expect(depositor.trial_credit_applied).toBe(false);

    const sender = anvilDevAccount(9);
    await chain.mint(sender.address, 5_000_000n);
    const tx = await chain.transfer({
      from: sender,
      to: depositor.deposit_addresses.base as Address,
      amount: 5_000_000n,
    });
    // npm start's chain makes a block a second; this one mines on demand: the confirmations the walk-through waits for.
    await chain.mine(2);
    const claim = await call(stack, 'POST', '/agents/deposit', {
      key: depositor.api_key,
      body: { chain: 'base', tx_hash: tx },
    });
    expect(claim.status).toBe(200);
    expect(claim.body).toMatchObject({ success: true, amount_credited: '5.00', new_balance: printed('new_balance') });
    const balance = await call(stack, 'GET', '/agents/balance', { key: depositor.api_key });
    expect(balance.body.balance).toBe(printed('balance'));
  });
});
