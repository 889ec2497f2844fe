// The chains deposits are accepted on: those named in DEPOSIT_CHAINS that have an RPC URL, or the local development
// chain the runtime started in their place.
import type { Config } from '../config/config.ts';
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

const keysOf = (chain: Chain) => {
  const prefix = chain.toUpperCase() as Uppercase<Chain>;
  return {
    rpcUrl: `${prefix}_RPC_URL`,
    usdcAddress: `${prefix}_USDC_ADDRESS`,
    confirmations: `${prefix}_CONFIRMATIONS`,
  } as const;
};

export function enabledChains(config: Config): ChainSettings[] {
  return chains.flatMap((chain) => {
    const keys = keysOf(chain);
    const rpcUrl = config[keys.rpcUrl];
    const local = rpcUrl !== undefined && rpcUrl === config.LOCAL_CHAIN_RPC_URL;
    if (!rpcUrl || (!local && !config.DEPOSIT_CHAINS.includes(chain))) return [];
    const chainId = local ? config.LOCAL_CHAIN_ID : chainIds[chain];
    const { usdcAddress, confirmations } = {
      usdcAddress: config[keys.usdcAddress],
      confirmations: config[keys.confirmations],
    };
    return [{ chain, rpcUrl, usdcAddress, confirmations, local, chainId }];
  });
}

export function chainSettings(config: Config, chain: Chain): ChainSettings | undefined {
  return enabledChains(config).find((settings) => settings.chain === chain);
}

/** Whether x402 payments work here: switched on, and some chain to be paid on. */
export const x402Offered = (config: Config) => config.X402_ENABLED && enabledChains(config).length > 0;

/** Whether the runtime must start the local chain: no chain has an RPC URL of its own. */
export const needsLocalChain = (config: Config) => chains.every((chain) => !config[keysOf(chain).rpcUrl]);

/** The configuration with the local chain serving LOCAL_CHAIN_NAME. */
export function withLocalChain(
  config: Config,
  local: { rpcUrl: string; usdcAddress: Address; chainId?: number },
): Config {
  const keys = keysOf(config.LOCAL_CHAIN_NAME);
  return {
    ...config,
    LOCAL_CHAIN_RPC_URL: local.rpcUrl,
    LOCAL_CHAIN_ID: local.chainId ?? config.LOCAL_CHAIN_ID,
    [keys.rpcUrl]: local.rpcUrl,
    [keys.usdcAddress]: local.usdcAddress,
    [keys.confirmations]: config.LOCAL_CHAIN_CONFIRMATIONS,
  };
}
