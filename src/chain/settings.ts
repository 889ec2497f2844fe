// The chains deposits are accepted on: those named in DEPOSIT_CHAINS that have an RPC URL, or the local development
// chain the runtime started in their place.
import type { ChainsConfig, Config } from '../config/config.ts';
import { type Chain, chains } from '../domain/values.ts';

export type Address = `0x${string}`;

export interface ChainSettings {
  chain: Chain;
  rpcUrl: string;
  /** The only contract whose Transfer logs count as USDC on this chain. */
  usdcAddress: Address;
  /** Blocks from the deposit's own block to the head, inclusive, before it is credited. */
  confirmations: number;
  /** The local development chain (anvil with a test token), never a real one. */
  local: boolean;
  /** EIP-155 chain id: x402 names the network `eip155:<chainId>`. */
  chainId: number;
}

/** The real networks' chain ids; the local chain's comes from the node the runtime started. */
const chainIds: Record<Chain, number> = { base: 8453, polygon: 137, ethereum: 1 };

export function enabledChains(config: ChainsConfig): ChainSettings[] {
  return chains.flatMap((chain) => {
    const { rpcUrl, usdcAddress, confirmations } = config[chain];
    const local = rpcUrl !== undefined && rpcUrl === config.local.rpcUrl;
    if (!rpcUrl || (!local && !config.enabled.includes(chain))) return [];
    const chainId = local ? config.local.chainId : chainIds[chain];
    return [{ chain, rpcUrl, usdcAddress, confirmations, local, chainId }];
  });
}

export function chainSettings(config: ChainsConfig, chain: Chain): ChainSettings | undefined {
  return enabledChains(config).find((settings) => settings.chain === chain);
}

/** Whether x402 payments work here: switched on, and some chain to be paid on. */
export const x402Offered = (config: Pick<Config, 'x402' | 'chains'>) =>
  config.x402.enabled && enabledChains(config.chains).length > 0;

/** Whether the runtime must start the local chain: no chain has an RPC URL of its own. */
export const needsLocalChain = (config: ChainsConfig) => chains.every((chain) => !config[chain].rpcUrl);

/** The chains with the local chain serving LOCAL_CHAIN_NAME. */
export function withLocalChain(
  config: ChainsConfig,
  local: { rpcUrl: string; usdcAddress: Address; chainId?: number },
): ChainsConfig {
  return {
    ...config,
    local: { ...config.local, rpcUrl: local.rpcUrl, chainId: local.chainId ?? config.local.chainId },
    [config.local.name]: {
      rpcUrl: local.rpcUrl,
      usdcAddress: local.usdcAddress,
      confirmations: config.local.confirmations,
    },
  };
}
