// The local chain keeps its state under DATA_DIR: the test token is deployed once, at its fixed address, and a
// restart from the same state file finds it (and its balances) there. Multicall3 is at its canonical address, too.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEventLogs, type Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  localChainClients,
  mintTestUsdc,
  multicall3Address,
  sendTestUsdc,
  startLocalChain,
  testUsdcAddress,
  testUsdcDeployer,
  type LocalChain,
} from '../../src/chain/local-chain.ts';
import { testUsdcAbi } from '../../src/chain/test-usdc.ts';
import { testLogger } from '../helpers/logger.ts';

const depositAddress: Address = '0x000000000000000000000000000000000000D305';

async function balanceOf(chain: LocalChain, address: Address) {
  const { publicClient } = localChainClients(chain.rpcUrl, chain.chainId);
  return publicClient.readContract({
    address: chain.usdcAddress,
    abi: testUsdcAbi,
    functionName: 'balanceOf',
    args: [address],
  });
}

describe('startLocalChain', () => {
  let dataDir: string;
  let chain: LocalChain | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'gateway-test-chain-'));
  });
  afterAll(async () => {
    await chain?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('deploys the test token at its fixed address from its own deployer', async () => {
    chain = await startLocalChain({ dataDir, chainId: 31337, log: testLogger });
    expect(chain.usdcAddress).toBe(testUsdcAddress);
    expect(chain.deployer).toBe(testUsdcDeployer.address);
    const { publicClient } = localChainClients(chain.rpcUrl, chain.chainId);
    expect(await publicClient.getTransactionCount({ address: chain.deployer })).toBe(1);
    const read = (functionName: 'name' | 'symbol' | 'version') =>
      publicClient.readContract({ address: testUsdcAddress, abi: testUsdcAbi, functionName });
    expect([await read('name'), await read('symbol'), await read('version')]).toEqual(['USD Coin', 'USDC', '2']);
  });

  it('puts Multicall3 at its canonical address without a transaction, and it answers', async () => {
    const { publicClient } = localChainClients(chain!.rpcUrl, chain!.chainId);
    expect(await publicClient.getCode({ address: multicall3Address })).toMatch(/^0x[0-9a-f]{100,}$/);
    expect(await publicClient.getBlockNumber()).toBe(1n); // the token's deployment only
    const results = await publicClient.multicall({
      multicallAddress: multicall3Address,
      contracts: [{ address: testUsdcAddress, abi: testUsdcAbi, functionName: 'symbol' }],
    });
    expect(results).toEqual([{ status: 'success', result: 'USDC' }]);
  });

  it('mints and sends test USDC with a Transfer log from the token', async () => {
    const { publicClient } = localChainClients(chain!.rpcUrl, chain!.chainId);
    const minted = await mintTestUsdc({ ...chain!, to: depositAddress, amount: 1_000_000n });
    const sent = await sendTestUsdc({ ...chain!, to: depositAddress, amount: 2_500_000n });
    for (const [hash, value] of [
      [minted, 1_000_000n],
      [sent, 2_500_000n],
    ] as const) {
      const receipt = await publicClient.getTransactionReceipt({ hash });
      const [transfer, ...others] = parseEventLogs({ abi: testUsdcAbi, logs: receipt.logs, eventName: 'Transfer' });
      expect(others).toEqual([]);
      expect(transfer).toMatchObject({ address: testUsdcAddress.toLowerCase(), args: { to: depositAddress, value } });
    }
    expect(await balanceOf(chain!, depositAddress)).toBe(3_500_000n);
  });

  it('keeps the token, its balances and the blocks across a restart from the same state file, without redeploying', async () => {
    const { publicClient: before } = localChainClients(chain!.rpcUrl, chain!.chainId);
    const blockBefore = await before.getBlockNumber();
    const deployerNonce = await before.getTransactionCount({ address: testUsdcDeployer.address });
    const multicall3Code = await before.getCode({ address: multicall3Address });
    await chain!.stop();

    chain = await startLocalChain({ dataDir, chainId: 31337, log: testLogger });
    const { publicClient: after } = localChainClients(chain.rpcUrl, chain.chainId);
    expect(chain.usdcAddress).toBe(testUsdcAddress);
    expect(await after.getCode({ address: multicall3Address })).toBe(multicall3Code);
    expect(await after.getBlockNumber()).toBe(blockBefore);
    expect(await after.getTransactionCount({ address: testUsdcDeployer.address })).toBe(deployerNonce);
    expect(await balanceOf(chain, depositAddress)).toBe(3_500_000n);
    const transfers = await after.getContractEvents({
      address: testUsdcAddress,
      abi: testUsdcAbi,
      eventName: 'Transfer',
      args: { to: depositAddress },
      fromBlock: 0n,
    });
    expect(transfers.map((log) => log.args.value)).toEqual([1_000_000n, 2_500_000n]);
  });
});
