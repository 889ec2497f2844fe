// The benchmark's money rows on the local chain: a deposit from POST /agents/deposit to its credit, and x402's
// unpaid 402 and paid admission at a fixed offered rate.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { sendTestUsdc } from '../src/chain/local-chain.ts';
import { pay } from '../harness/x402-paying-client.ts';
import { openLoop, percentile, sleep } from './load.ts';
import { loadRow, type Row, withTarget } from './table.ts';

const deposits = 20;
// x402 rows: 50 requests each, one payer per payment.
const x402Requests = 50;
const x402PerSecond = 5;

interface LocalChain {
  rpcUrl: string;
  usdcAddress: `0x${string}`;
  chain: string;
}

const localChain = async (dataDir: string) =>
  JSON.parse(await readFile(join(dataDir, 'anvil', 'chain.json'), 'utf8')) as LocalChain;

const json = { 'content-type': 'application/json' };

/** One agent, `deposits` USDC transfers on the local chain, one after the other, each timed to its credit. */
export async function depositRow(api: string, dataDir: string, confirmations: number): Promise<Row> {
  const chain = await localChain(dataDir);
  const registered = await fetch(`${api}/agents/register`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ agent_name: 'bench agent' }),
  });
  const agent = (await registered.json()) as { api_key: string; deposit_addresses: Record<string, `0x${string}`> };
  const headers = { ...json, authorization: `Bearer ${agent.api_key}` };
  const to = agent.deposit_addresses[chain.chain];
  if (!to) throw new Error(`the agent has no deposit address on ${chain.chain}`);
  const measured = { latencies: [] as number[], failures: 0, seconds: 0 };
  const started = performance.now();
  for (let i = 0; i < deposits; i++) {
    const txHash = await sendTestUsdc({ rpcUrl: chain.rpcUrl, usdcAddress: chain.usdcAddress, to, amount: 1_000_000n });
    const t = performance.now();
    const answer = await fetch(`${api}/agents/deposit`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ chain: chain.chain, tx_hash: txHash }),
    });
    let credited = ((await answer.json()) as { success?: boolean }).success === true;
    while (!credited) {
      await sleep(50);
      const balance = await (await fetch(`${api}/agents/balance`, { headers })).json();
      const recent = (balance as { recent_deposits: { tx_hash: string; status: string }[] }).recent_deposits;
      credited = recent.some((deposit) => deposit.tx_hash === txHash && deposit.status === 'credited');
    }
    measured.latencies.push(performance.now() - t);
  }
  measured.seconds = (performance.now() - started) / 1000;
  return loadRow(`POST /agents/deposit → credited (${confirmations} confirmations)`, 'one at a time', measured);
}

/**
 * The unpaid 402 and a paid admission (202) of `request`, each offered at `x402PerSecond`. The benchmark's own task
 * (an 8×8 upscale), so the row measures what x402 adds to an admission, not a heavier model's runs beside it.
 */
export async function x402Rows(api: string, dataDir: string, request: object): Promise<Row[]> {
  const chain = await localChain(dataDir);
  const body = JSON.stringify(request);
  const unpaid = async () => {
    const response = await fetch(`${api}/generations`, { method: 'POST', headers: json, body });
    if (response.status !== 402) throw new Error(`unpaid POST answered ${response.status}`);
    return (await response.json()) as { requirements: PaymentRequired };
  };
  const seconds = x402Requests / x402PerSecond;
  const unpaidRuns = await openLoop(x402PerSecond, seconds, async () => {
    await unpaid();
  });
  // Payments are signed beforehand, one fresh payer each: only the POST that carries one is timed.
  const { requirements } = await unpaid();
  const headers: Record<string, string>[] = [];
  for (let i = 0; i < x402Requests; i++) {
    const payer = privateKeyToAccount(generatePrivateKey());
    await sendTestUsdc({ rpcUrl: chain.rpcUrl, usdcAddress: chain.usdcAddress, to: payer.address, amount: 1_000_000n });
    headers.push({
      ...json,
      'PAYMENT-SIGNATURE': encodePaymentSignatureHeader((await pay(requirements, payer)).payload),
    });
  }
  const paidRuns = await openLoop(x402PerSecond, seconds, async (i) => {
    const response = await fetch(`${api}/generations`, { method: 'POST', headers: headers[i], body });
    if (response.status !== 202) throw new Error(`paid POST answered ${response.status}: ${await response.text()}`);
    await response.arrayBuffer();
  });
  return [
    loadRow('POST /generations without a key (x402 402)', x402PerSecond, unpaidRuns),
    withTarget(
      loadRow('POST /generations with an x402 payment (verify + admit)', x402PerSecond, paidRuns),
      'p50 ≤ 150 ms',
      percentile(paidRuns.latencies, 50) <= 150,
    ),
  ];
}
