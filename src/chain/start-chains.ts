// The chains deposits and x402 use: those configured, or the local development chain started in their place (by the
// all-in-one role, and by the cluster for all of its processes).
import { join } from 'node:path';
import { type Config, rpcUrlKey } from '../config/config.ts';
import { chains } from '../domain/values.ts';
import type { Logger } from '../infra/logger.ts';
import type { Stop } from '../infra/processes/stops.ts';
import { removeLocalChainFile, writeLocalChainFile } from './local-chain-file.ts';
import { startLocalChain } from './local-chain.ts';
import { enabledChains, needsLocalChain, withLocalChain } from './settings.ts';

/**
 * The chains deposits use. The all-in-one role starts the local chain when no chain has an RPC URL, announces it in
 * <DATA_DIR>/anvil/chain.json for genctl, and returns the configuration that serves it as LOCAL_CHAIN_NAME.
 */
export async function startChains(
  config: Config,
  dataDir: string,
  logger: Logger,
  stops: Stop[],
): Promise<{ config: Config; banner: string[] }> {
  if (!needsLocalChain(config.chains)) {
    const enabled = enabledChains(config.chains);
    const listed = enabled.map(({ chain, confirmations }) => `${chain} (${confirmations} confirmations)`).join(', ');
    if (enabled.length === 0) logger.warn('no chain in DEPOSIT_CHAINS has an RPC URL: deposits are disabled');
    return {
      config,
      banner: [`Chains        ${listed || 'none enabled (DEPOSIT_CHAINS has no chain with an RPC URL)'}`],
    };
  }
  if (config.server.role !== 'all') {
    logger.warn(
      `no chain RPC URL (${chains.map(rpcUrlKey).join(', ')}): deposits are disabled; only the all-in-one role runs the local development chain`,
    );
    return { config, banner: ['Chains        none: deposits are disabled (no chain RPC URL)'] };
  }
  const local = await startLocalChain({
    dataDir,
    blockTimeSeconds: config.chains.local.blockTimeSeconds,
    chainId: config.chains.local.chainId,
    log: logger,
  });
  stops.push({
    name: 'local chain',
    stop: async () => {
      await removeLocalChainFile(dataDir);
      await local.stop();
    },
  });
  const name = config.chains.local.name;
  await writeLocalChainFile(dataDir, {
    rpcUrl: local.rpcUrl,
    chainId: local.chainId,
    usdcAddress: local.usdcAddress,
    chain: name,
    pid: local.pid,
  });
  return {
    config: { ...config, chains: withLocalChain(config.chains, local) },
    banner: [
      `Chain         LOCAL DEVELOPMENT CHAIN (anvil) ${local.rpcUrl}, chain id ${local.chainId} (x402: eip155:${local.chainId}), test USDC ${local.usdcAddress}, served as "${name}" — not a real network; state in ${join(dataDir, 'anvil')}`,
      `              ${config.chains.local.confirmations} confirmations, a block every ${config.chains.local.blockTimeSeconds} s; send test USDC: npx genctl chain send --to <address> --amount 5`,
    ],
  };
}

/**
 * The variables that hand the local chain `startChains` started to another process (the cluster's api and worker
 * processes): it serves LOCAL_CHAIN_NAME there as it does here. Nothing when a real chain is configured.
 */
export function localChainEnvironment(config: Config): Record<string, string> {
  const { local } = config.chains;
  if (!local.rpcUrl) return {};
  const served = config.chains[local.name];
  const prefix = local.name.toUpperCase();
  return {
    LOCAL_CHAIN_RPC_URL: local.rpcUrl,
    LOCAL_CHAIN_ID: String(local.chainId),
    [rpcUrlKey(local.name)]: local.rpcUrl,
    [`${prefix}_USDC_ADDRESS`]: served.usdcAddress,
    [`${prefix}_CONFIRMATIONS`]: String(served.confirmations),
    // x402 is on by default only where no chain has an RPC URL, which is no longer so there: pass on what it is here.
    X402_ENABLED: String(config.x402.enabled),
  };
}

/** What a start-up list (npm start's, the cluster's) keeps of its chains: the configuration serving them, the banner. */
export interface ChainState {
  config: Config;
  dataDir: string;
  logger: Logger;
  chainBanner: string[];
}

/** startChains as a part of a start-up list, from the configuration `given`: its stops, for the list to run. */
export async function startChainPart(state: ChainState, given: Config): Promise<Stop[]> {
  const stops: Stop[] = [];
  const chain = await startChains(given, state.dataDir, state.logger, stops);
  state.config = chain.config;
  state.chainBanner = chain.banner;
  return stops;
}
