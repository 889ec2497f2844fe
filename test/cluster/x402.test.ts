// x402 on the cluster, with the clients' own code only: @x402/fetch 2.x and x402-fetch 1.x each pay for a task
// through Caddy on the cluster's local chain. The api process that verified the payment and the worker that
// settles it on delivery are different processes; each payer is charged the task's cost once, on chain and in the
// gateway's books.
import { x402Client } from '@x402/core/client';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment as wrapFetchV2 } from '@x402/fetch';
import { createPublicClient, erc20Abi, type Hex, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createSigner, wrapFetchWithPayment as wrapFetchV1 } from 'x402-fetch';
import { beforeAll, describe, expect, it } from 'vitest';
import { type LocalChainInfo, readLocalChainFile } from '../../src/chain/local-chain-file.ts';
import { fundedPayer, paidTaskEnded } from '../helpers/x402-payers.ts';
import { useSharedCluster } from './shared-cluster.ts';

const cluster = useSharedCluster();
let chain: LocalChainInfo;
beforeAll(async () => {
  chain = (await readLocalChainFile(cluster.dataDir))!;
});

const speech = { type: 'text-to-audio', model: 'local/espeak', prompt: 'Paid per request on the cluster.' };
const post = (fetcher: typeof fetch) =>
  fetcher(`${cluster.app.url}/api/v1/generations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(speech),
  });

const usdcHeld = (owner: Hex) =>
  createPublicClient({ transport: http(chain.rpcUrl) }).readContract({
    address: chain.usdcAddress,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
  });

/** Pays with `pay`, waits for the settled task, and checks the payer was charged its cost once. */
async function paysOnce(payer: Hex, pay: (fetcher: typeof fetch) => typeof fetch) {
  const address = privateKeyToAccount(payer).address;
  const before = await usdcHeld(address);
  const answered = await post(pay(fetch));
  expect(answered.status).toBe(202);
  const { task } = await paidTaskEnded(cluster.app.url, (await answered.json()) as any);
  expect(task).toMatchObject({
    status: 'completed',
    outputs: [expect.stringMatching(/^http/)],
    payment: { network: `eip155:${chain.chainId}`, payer: address.toLowerCase(), status: 'settled' },
  });
  // The API speaks USD; USDC has six decimals, as micro-USD.
  const cost = BigInt(Math.round(task.payment.amount_settled * 1e6));
  expect(cost).toBeGreaterThan(0n);
  expect(before - (await usdcHeld(address))).toBe(cost);
  expect(await cluster.prisma.x402Payment.count({ where: { taskId: task.id } })).toBe(1);
  return task;
}

describe('x402 on the cluster', () => {
  it('@x402/fetch 2.x pays, settled once on delivery', async () => {
    const payer = await fundedPayer(cluster.dataDir);
    await paysOnce(payer, (fetcher) => {
      const client = new x402Client();
      const network = `eip155:${chain.chainId}` as const;
      registerExactEvmScheme(client, { signer: privateKeyToAccount(payer), networks: [network] });
      client.setSpendControls({
        allowedAssets: [{ network, asset: chain.usdcAddress, maxAmountPerPayment: '1000000' }],
      });
      return wrapFetchV2(fetcher, client);
    });
  });

  it('x402-fetch 1.x pays, settled once on delivery', async () => {
    const payer = await fundedPayer(cluster.dataDir);
    const signer = await createSigner('base-sepolia', payer);
    await paysOnce(payer, (fetcher) => wrapFetchV1(fetcher, signer, 1_000_000n));
  });
});
