// Our upto proxy: the committed runtime code is what the source compiles to, and its ABI is the one @x402/evm calls.
import { readFileSync } from 'node:fs';
import { PERMIT2_ADDRESS, x402UptoPermit2ProxyABI, x402UptoPermit2ProxyAddress } from '@x402/evm';
import { type AbiParameter } from 'viem';
import { describe, expect, it } from 'vitest';
import { compileContract, renderArtifact, x402UptoProxySource } from '../../src/chain/compile-contracts.ts';
import { permit2Address } from '../../src/chain/permit2.ts';
import { uptoProxyAddress, uptoProxyRuntimeCode } from '../../src/chain/upto-contracts.ts';

/** An ABI entry without internalType (x402's names the structs of its own contract). */
function shape(entry: {
  type: string;
  name?: string;
  inputs?: readonly AbiParameter[];
  outputs?: readonly AbiParameter[];
}) {
  const strip = (parameters: readonly AbiParameter[] = []): unknown[] =>
    parameters.map((parameter) => ({
      name: parameter.name,
      type: parameter.type,
      ...('components' in parameter ? { components: strip(parameter.components) } : {}),
    }));
  return { type: entry.type, name: entry.name, inputs: strip(entry.inputs), outputs: strip(entry.outputs) };
}

describe('X402UptoProxy artifact', () => {
  const compiled = compileContract(x402UptoProxySource);

  it('is installed where @x402/evm expects it and Permit2 (src/chain names the addresses without importing x402)', () => {
    expect(uptoProxyAddress).toBe(x402UptoPermit2ProxyAddress);
    expect(permit2Address).toBe(PERMIT2_ADDRESS);
  });

  it('has the runtime code and ABI the source compiles to', () => {
    expect(uptoProxyRuntimeCode).toBe(compiled.deployedBytecode);
    expect(readFileSync(x402UptoProxySource.artifactPath, 'utf8')).toBe(renderArtifact(compiled));
    expect(compiled.deployedBytecode).toMatch(/a164736f6c6343[0-9a-f]{6}000a$/);
  });

  it("has exactly the functions, events and errors of x402's upto proxy ABI", () => {
    const ours = (compiled.abi as Parameters<typeof shape>[0][]).map(shape);
    const x402 = x402UptoPermit2ProxyABI.map(shape);
    const byName = (a: { type: string; name?: string }, b: { type: string; name?: string }) =>
      `${a.type}:${a.name}`.localeCompare(`${b.type}:${b.name}`);
    expect(ours.sort(byName)).toEqual(x402.sort(byName));
  });
});
