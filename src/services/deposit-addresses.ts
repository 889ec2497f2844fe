// An agent's deposit address is the BIP-32 child (its deposit_index) of the configured extended public key: the
// server can attribute every deposit but holds no private key. One EVM address serves every enabled chain.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { HDKey } from '@scure/bip32';
import { bytesToHex } from 'viem';
import { publicKeyToAddress } from 'viem/accounts';
import type { Chain } from '../domain/values.ts';

const parsedKeys = new Map<string, HDKey>();

export function deriveDepositAddress(xpub: string, index: number): `0x${string}` {
  let parent = parsedKeys.get(xpub);
  if (!parent) {
    parent = HDKey.fromExtendedKey(xpub);
    parsedKeys.set(xpub, parent);
  }
  const child = parent.deriveChild(index);
  const uncompressed = secp256k1.Point.fromBytes(child.publicKey!).toBytes(false);
  return publicKeyToAddress(bytesToHex(uncompressed));
}

export function depositAddresses(
  config: { DEPOSIT_XPUB: string; DEPOSIT_CHAINS: Chain[] },
  index: number | null,
): Record<string, string> {
  if (index === null) return {};
  const address = deriveDepositAddress(config.DEPOSIT_XPUB, index);
  return Object.fromEntries(config.DEPOSIT_CHAINS.map((chain) => [chain, address]));
}
