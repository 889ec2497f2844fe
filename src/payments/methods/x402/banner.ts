// What the start-up banner says of x402, so a newcomer can pay without reading further: where payments are taken (each
// chain's network in v2 and v1 names, its USDC) and, on the local development chain, how to fund a payer.
import { enabledChains, x402Offered } from '../../../chain/settings.ts';
import type { Config } from '../../../config/config.ts';
import { networkOf } from './requirements.ts';
import { v1NetworkName } from './v1-networks.ts';

export function x402BannerLines(config: Pick<Config, 'x402' | 'chains'>): string[] {
  if (!x402Offered(config)) {
    const why = config.x402.enabled ? 'no chain to be paid on' : 'X402_ENABLED=false';
    return [`x402          off (${why}): POST /api/v1/generations needs an API key`];
  }
  const chains = enabledChains(config.chains);
  const lines = chains.map((chain) => {
    const v1 = v1NetworkName(networkOf(chain));
    return `${networkOf(chain)}${v1 ? ` (x402 v1: ${v1})` : ''}, USDC ${chain.usdcAddress}`;
  });
  return [
    `x402          on: POST /api/v1/generations without an API key answers 402; pay to ${config.x402.payTo} on ${lines.join('; ')}`,
    ...(chains.some((chain) => chain.local)
      ? ['              fund a payer with test USDC: npx genctl chain fund 0x<payer address> --amount 5']
      : []),
  ];
}
