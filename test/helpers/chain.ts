// A real local chain for a test file: anvil (no state file, automine) with the test token deployed at its fixed
// address. Started in beforeAll, stopped in afterAll; the fields are filled in by beforeAll.
import {
  createTestClient,
  http,
  maxUint256,
  type Account,
  type Address,
  type Hash,
  type Hex,
  type LocalAccount,
  type PublicClient,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll } from 'vitest';
import {
  anvilDevAccount,
  deployTestUsdc,
  ensureTestUsdc,
  localChainClients,
  mintTestUsdc,
  sendTestUsdc,
} from '../../src/chain/local-chain.ts';
import type { ChainSettings } from '../../src/chain/settings.ts';
import { testUsdcAbi } from '../../src/chain/test-usdc.ts';
import { startAnvil, type Anvil } from '../../src/infra/anvil.ts';
import { testLogger } from './logger.ts';
import type { ConfigOverrides } from './config.ts';

export interface TestChain {
  rpcUrl: string;
  chainId: number;
  usdcAddress: Address;
  publicClient: PublicClient;
  /** The test token balance of `address`, in base units. */
  balanceOf(address: Address): Promise<bigint>;
  /** `owner` lets `spender` move any amount of its test token (e.g. Permit2, for x402's upto). */
  approve(owner: Account, spender: Address): Promise<void>;
  /** The owner mints `amount` base units to `to`. */
  mint(to: Address, amount: bigint): Promise<Hash>;
  /** A USDC transfer, by default from a funded dev account (minted to when short). */
  transfer(options: { from?: Account | Hex; to: Address; amount: bigint }): Promise<Hash>;
  /** Another ERC-20 (a second TestUSDC, named "USD Coin" too) at a new address: a token deposits must ignore. */
  deployOtherToken(): Promise<Address>;
  mine(blocks: number): Promise<void>;
  snapshot(): Promise<Hex>;
  revert(id: Hex): Promise<void>;
  setAutomine(on: boolean): Promise<void>;
}

// Dev account 8 deploys the other tokens: its nonces never move the test token's fixed address (account 9's).
const otherTokenDeployer = anvilDevAccount(8);

/** The chain as the service's configuration describes an enabled one (for code that takes ChainSettings). */
export function chainSettingsOf(chain: TestChain): ChainSettings {
  const { rpcUrl, usdcAddress, chainId } = chain;
  return { chain: 'base', rpcUrl, usdcAddress, chainId, confirmations: 1, local: true };
}

/** The configuration of a gateway that takes x402 payments on this chain (serving as `base`). */
export const x402OnLocalChain = (chain: TestChain) =>
  ({
    x402: { enabled: true },
    chains: {
      enabled: ['base'],
      base: { rpcUrl: chain.rpcUrl, usdcAddress: chain.usdcAddress },
      local: { rpcUrl: chain.rpcUrl, chainId: chain.chainId },
    },
  }) satisfies ConfigOverrides;

export function useLocalChain(options: { chainId?: number } = {}): TestChain {
  let anvil: Anvil | undefined;
  const testClient = () => createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl), cacheTime: 0 });
  const chain: TestChain = {
    rpcUrl: '',
    chainId: 0,
    usdcAddress: '0x',
    publicClient: undefined as never,
    balanceOf: (address) =>
      chain.publicClient.readContract({
        address: chain.usdcAddress,
        abi: testUsdcAbi,
        functionName: 'balanceOf',
        args: [address],
      }),
    async approve(owner, spender) {
      await callToken(owner, 'approve', [spender, maxUint256]);
    },
    mint: (to, amount) => mintTestUsdc({ rpcUrl: chain.rpcUrl, usdcAddress: chain.usdcAddress, to, amount }),
    async transfer({ from, to, amount }) {
      if (from === undefined || typeof from === 'string') {
        return sendTestUsdc({ rpcUrl: chain.rpcUrl, usdcAddress: chain.usdcAddress, fromPrivateKey: from, to, amount });
      }
      return callToken(from, 'transfer', [to, amount]);
    },
    deployOtherToken: () => deployTestUsdc(chain.rpcUrl, otherTokenDeployer),
    mine: (blocks) => testClient().mine({ blocks }),
    snapshot: () => testClient().snapshot(),
    async revert(id) {
      await testClient().revert({ id });
    },
    setAutomine: (on) => testClient().setAutomine(on),
  };
  /** `from` calls the test token's `approve` or `transfer`, and waits until it is mined. */
  async function callToken(from: Account, functionName: 'approve' | 'transfer', args: [Address, bigint]) {
    const { walletClient } = localChainClients(chain.rpcUrl, chain.chainId);
    const hash = await walletClient(from).writeContract({
      address: chain.usdcAddress,
      abi: testUsdcAbi,
      functionName,
      args,
    });
    await chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    return hash;
  }
  beforeAll(async () => {
    anvil = await startAnvil({ chainId: options.chainId, log: testLogger });
    chain.rpcUrl = anvil.rpcUrl;
    chain.chainId = anvil.chainId;
    chain.publicClient = localChainClients(anvil.rpcUrl, anvil.chainId).publicClient as PublicClient;
    chain.usdcAddress = (await ensureTestUsdc(anvil.rpcUrl, testLogger)).address;
  });
  afterAll(async () => {
    await anvil?.stop();
  });
  return chain;
}

/** A fresh payer holding `amount` of the test token (and no ETH: an x402 facilitator pays the gas). */
export async function newPayer(chain: TestChain, amount = 2_000_000n): Promise<LocalAccount> {
  const payer = privateKeyToAccount(generatePrivateKey());
  await chain.mint(payer.address, amount);
  return payer;
}
