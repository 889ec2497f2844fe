// The test token (src/chain/contracts/TestUSDC.sol) as viem uses it: typed ABI, creation bytecode, EIP-712 domain.
import type { Address } from 'viem';
import artifact from './contracts/TestUSDC.json' with { type: 'json' };
import { testUsdcAbi } from './contracts/test-usdc-abi.ts';

export { testUsdcAbi };
export const testUsdcBytecode = artifact.bytecode as `0x${string}`;
export const testUsdcCompiler = artifact.compiler;

export const testUsdc = { name: 'USD Coin', symbol: 'USDC', version: '2', decimals: 6 } as const;

/** The EIP-712 domain the token checks EIP-3009 signatures against (as for Circle's USDC). */
export function testUsdcDomain(chainId: number, verifyingContract: Address) {
  return { name: testUsdc.name, version: testUsdc.version, chainId, verifyingContract } as const;
}

/** EIP-3009 `TransferWithAuthorization`, field for field as FiatToken v2 and x402's `exact` scheme sign it. */
export const transferWithAuthorizationTypes = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;
