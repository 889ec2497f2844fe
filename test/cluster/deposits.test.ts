// Deposits on the cluster's local chain (anvil with a test USDC, started by `npm run cluster` for every process):
// a transfer claimed through one api process is credited once, the same claim through the other answers the same and
// credits nothing more; a transfer nobody claims is found by the deposit watcher a worker runs; the agent hears of
// each by webhook, and the ledger holds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGenctl } from '../helpers/genctl.ts';
import { call, type RegisteredAgent, registerAgent } from '../helpers/http.ts';
import { ledgerProblems } from '../../harness/ledger-check.ts';
import { type Receiver, startReceiver, verifyDelivery } from '../../harness/webhook-receiver.ts';
import { useSharedCluster } from './shared-cluster.ts';

const cluster = useSharedCluster();
let hooks: Receiver;
beforeAll(async () => {
  hooks = await startReceiver();
});
afterAll(() => hooks?.close());

/** `genctl chain send`, as docs/deposits.md has a user make a deposit; the transaction's hash. */
async function send(agent: RegisteredAgent, amount: string): Promise<string> {
  const sent = await runGenctl({ DATA_DIR: cluster.dataDir }, [
    ...['chain', 'send', '--to', agent.deposit_addresses.base!, '--amount', amount, '--json'],
  ]);
  expect(sent.code, sent.stderr).toBe(0);
  return sent.json.tx_hash;
}

const claim = (agent: RegisteredAgent, txHash: string) =>
  call(cluster, 'POST', '/agents/deposit', { key: agent.api_key, body: { chain: 'base', tx_hash: txHash } });
/** The balance GET /agents/balance answers, in micro-USD. */
const balanceOf = async (agent: RegisteredAgent) =>
  Math.round(Number((await call(cluster, 'GET', '/agents/balance', { key: agent.api_key })).body.balance) * 1e6);

describe('deposits on the cluster', () => {
  it('a claimed transfer is credited once, whichever api process answers', async () => {
    const agent = await registerAgent(cluster, { body: { webhook_url: `http://127.0.0.1:${hooks.port}/claimed` } });
    const before = await balanceOf(agent);
    const txHash = await send(agent, '3.141592');
    // The claim waits for the confirmations (a block a second) up to DEPOSIT_WAIT_SECONDS; after that, it is asked again.
    await expect
      .poll(async () => (await claim(agent, txHash)).body, { timeout: 60_000, interval: 1_000 })
      .toMatchObject({ success: true, amount_credited: '3.141592' });
    // Round robin: these go to both api processes.
    const again = await Promise.all([claim(agent, txHash), claim(agent, txHash)]);
    for (const answer of again) expect(answer.body).toMatchObject({ success: true, amount_credited: '3.141592' });
    expect(await balanceOf(agent)).toBe(before + 3_141_592);
    expect(await cluster.prisma.ledgerEntry.count({ where: { accountId: agent.agent_id, kind: 'deposit' } })).toBe(1);
    await expect
      .poll(() => hooks.received.filter(({ path }) => path === '/claimed').length, { timeout: 30_000 })
      .toBe(1);
    const [delivery] = hooks.received.filter(({ path }) => path === '/claimed');
    expect(verifyDelivery(agent.webhook_secret!, delivery!)).toMatchObject({
      event: 'deposit.credited',
      data: { tx_hash: txHash, amount_usd: '3.141592', status: 'credited' },
    });
    expect(await ledgerProblems(cluster.prisma, agent.agent_id)).toEqual([]);
  });

  it('a transfer nobody claims is credited by the deposit watcher', async () => {
    const agent = await registerAgent(cluster);
    const before = await balanceOf(agent);
    const txHash = await send(agent, '1.25');
    // The watcher scans every DEPOSIT_SCAN_INTERVAL_SECONDS (10 by default), on a worker process.
    await expect.poll(() => balanceOf(agent), { timeout: 90_000, interval: 1_000 }).toBe(before + 1_250_000);
    const deposits = await cluster.prisma.ledgerEntry.findMany({
      where: { accountId: agent.agent_id, kind: 'deposit' },
    });
    expect(deposits.map(({ amount, idempotencyKey }) => [amount, idempotencyKey])).toEqual([
      [1_250_000n, expect.stringMatching(new RegExp(`^deposit:base:${txHash}#\\d+$`))],
    ]);
    expect(await ledgerProblems(cluster.prisma, agent.agent_id)).toEqual([]);
  });
});
