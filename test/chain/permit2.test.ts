// Permit2 and our upto proxy on a real anvil: the committed Permit2 code is the package's, and once patched it signs
// for the canonical address on this chain, where x402's clients sign for it.
import { createTestClient, http, keccak256, sha256, toHex, type Address } from 'viem';
import { describe, expect, it } from 'vitest';
import { x402UptoPermit2ProxyABI } from '@x402/evm';
import {
  permit2Abi,
  permit2Address,
  permit2DomainSeparator,
  permit2Fixture,
  permit2RuntimeCode,
} from '../../src/chain/permit2.ts';
import { permit2FixtureFromPackage, readPermit2Fixture } from '../../src/chain/permit2-extract.ts';
import { ensureUptoContracts, uptoProxyAddress, uptoProxyRuntimeCode } from '../../src/chain/upto-contracts.ts';
import { useLocalChain } from '../helpers/chain.ts';
import { testLogger } from '../helpers/logger.ts';

const chain = useLocalChain();

describe('the Permit2 fixture', () => {
  it('is the runtime code of @uniswap/v4-periphery 1.0.3, byte for byte', () => {
    expect(permit2Fixture).toEqual(readPermit2Fixture());
    expect(permit2Fixture.length).toBe(9152);
    expect(permit2Fixture.runtimeBytecode.length).toBe(2 + 2 * permit2Fixture.length);
    expect(sha256(permit2Fixture.runtimeBytecode)).toBe(permit2Fixture.sha256);
    expect(permit2Fixture.sha256).toBe('0x60f506dfaba70e6353b90771b0d9e8f91ee6b1e3c4bd42a66e8085426ade2886');
    expect(permit2Fixture.license.text).toContain('Copyright (c) 2022 Uniswap Labs');
  });

  it('names the offsets of its two immutables, as extraction finds them again', () => {
    const source = `bytes memory bytecode = hex"${permit2Fixture.runtimeBytecode.slice(2)}";`;
    const extracted = permit2FixtureFromPackage(source, permit2Fixture.license.text);
    expect(extracted.immutables).toEqual(permit2Fixture.immutables);
    expect(extracted.immutables).toEqual({
      cachedChainId: { offset: 6945, value: toHex(31337, { size: 32 }) },
      cachedDomainSeparator: { offset: 6983, value: expect.stringMatching(/^0x[0-9a-f]{64}$/) },
    });
  });
});

describe('on the local chain', () => {
  const readPermit2DomainSeparator = (address: Address) =>
    chain.publicClient.readContract({ address, abi: permit2Abi, functionName: 'DOMAIN_SEPARATOR' });

  it("answers Permit2's EIP-712 domain {name: Permit2, chainId, verifyingContract: the canonical address}", async () => {
    expect(await chain.publicClient.getCode({ address: permit2Address })).toBe(permit2RuntimeCode(chain.chainId));
    expect(await readPermit2DomainSeparator(permit2Address)).toBe(permit2DomainSeparator(chain.chainId));
  });

  it('would answer the domain of the address it was compiled for, unpatched (its cached chain id is 31337)', async () => {
    const scratch: Address = '0x00000000000000000000000000000000005c7a7c';
    await createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl) }).setCode({
      address: scratch,
      bytecode: permit2Fixture.runtimeBytecode,
    });
    expect(chain.chainId).toBe(31337);
    expect(await readPermit2DomainSeparator(scratch)).toBe(permit2Fixture.immutables.cachedDomainSeparator.value);
  });

  it('has the upto proxy at the address x402 expects, calling Permit2 with the witness type x402 signs', async () => {
    expect(await chain.publicClient.getCode({ address: uptoProxyAddress })).toBe(uptoProxyRuntimeCode);
    const read = <F extends 'PERMIT2' | 'WITNESS_TYPE_STRING' | 'WITNESS_TYPEHASH'>(functionName: F) =>
      chain.publicClient.readContract({ address: uptoProxyAddress, abi: x402UptoPermit2ProxyABI, functionName });
    expect(await read('PERMIT2')).toBe(permit2Address);
    const witnessType = 'Witness(address to,address facilitator,uint256 validAfter)';
    expect(await read('WITNESS_TYPE_STRING')).toBe(
      `Witness witness)TokenPermissions(address token,uint256 amount)${witnessType}`,
    );
    expect(await read('WITNESS_TYPEHASH')).toBe(keccak256(toHex(witnessType)));
  });

  it('installs nothing a second time, and replaces code that differs', async () => {
    expect(await ensureUptoContracts(chain.rpcUrl, chain.chainId, testLogger)).toEqual({ installed: [] });
    await createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl) }).setCode({
      address: uptoProxyAddress,
      bytecode: '0x00',
    });
    expect(await ensureUptoContracts(chain.rpcUrl, chain.chainId, testLogger)).toEqual({
      installed: [uptoProxyAddress],
    });
    expect(await chain.publicClient.getCode({ address: uptoProxyAddress })).toBe(uptoProxyRuntimeCode);
  });
});
