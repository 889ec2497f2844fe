// x402 v1 names an EVM network (`base`, `base-sepolia`) where v2 says `eip155:<chain id>`; a v1 client knows no other
// name. The chains this gateway takes payments on, and the test networks a local chain may stand in for (npm start's
// runs as Base Sepolia, 84532, so that v1 clients can name it too).
import type { Network } from '@x402/core/types';

const v1Names: Readonly<Record<number, string>> = {
  8453: 'base',
  84532: 'base-sepolia',
  137: 'polygon',
  80002: 'polygon-amoy',
};

/** The v1 name of a v2 (`eip155:<chain id>`) network; undefined when v1 has none (Ethereum, anvil's 31337). */
export function v1NetworkName(network: string): string | undefined {
  const chainId = /^eip155:(\d+)$/.exec(network)?.[1];
  return chainId === undefined ? undefined : v1Names[Number(chainId)];
}

/** The v2 network a v1 name stands for; undefined for a name not in the table. */
export function networkOfV1Name(name: string): Network | undefined {
  const found = Object.entries(v1Names).find(([, v1Name]) => v1Name === name);
  return found ? `eip155:${found[0]}` : undefined;
}
