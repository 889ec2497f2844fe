// Uniswap's Permit2 on the local chain: the committed runtime code (Permit2.runtime.json), its immutables patched for
// the canonical address and the chain's id, and the reads a service needs (domain separator, spent nonces).
import { domainSeparator, parseAbi, toHex, type Address, type Hex, type PublicClient } from 'viem';
import fixtureJson from './contracts/Permit2.runtime.json' with { type: 'json' };
import { permit2Domain, type ImmutableWord, type Permit2Fixture } from './permit2-extract.ts';

/** Permit2's canonical address on every chain, where x402's clients sign for it (@x402/evm's PERMIT2_ADDRESS). */
export const permit2Address: Address = '0x000000000022D473030F116dDEE9F6B43aC78BA3';

export const permit2Fixture = fixtureJson as Permit2Fixture;

export const permit2Abi = parseAbi([
  'function DOMAIN_SEPARATOR() view returns (bytes32)',
  'function nonceBitmap(address owner, uint256 wordPosition) view returns (uint256)',
]);

export function permit2DomainSeparator(chainId: number): Hex {
  return domainSeparator({ domain: permit2Domain(chainId, permit2Address) });
}

function replaceWord(code: string, word: ImmutableWord, value: Hex): string {
  const at = 2 + word.offset * 2;
  if (`0x${code.slice(at, at + 64)}` !== word.value)
    throw new Error(`Permit2's code has no ${word.value} at ${word.offset}`);
  return code.slice(0, at) + value.slice(2) + code.slice(at + 64);
}

/** The runtime code as a constructor at the canonical address on chain `chainId` would have left it. */
export function permit2RuntimeCode(chainId: number): Hex {
  const { cachedChainId, cachedDomainSeparator } = permit2Fixture.immutables;
  const withChainId = replaceWord(permit2Fixture.runtimeBytecode, cachedChainId, toHex(chainId, { size: 32 }));
  return replaceWord(withChainId, cachedDomainSeparator, permit2DomainSeparator(chainId)) as Hex;
}

/**
 * Whether Permit2 has spent `owner`'s signature-transfer nonce: one bit in a 256-bit word of `nonceBitmap`. Spent by
 * a settlement or by the owner's invalidateUnorderedNonces; no log carries the nonce itself.
 */
export async function isPermit2NonceUsed(client: PublicClient, owner: Address, nonce: bigint): Promise<boolean> {
  const word = await client.readContract({
    address: permit2Address,
    abi: permit2Abi,
    functionName: 'nonceBitmap',
    args: [owner, nonce >> 8n],
  });
  return (word >> (nonce & 0xffn)) & 1n ? true : false;
}
