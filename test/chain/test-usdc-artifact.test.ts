// The committed artifact is what the committed source compiles to: run `npm run compile-contracts` after an edit.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileContract, renderAbiModule, renderArtifact, testUsdcSource } from '../../src/chain/compile-contracts.ts';
import { testUsdcAbi, testUsdcBytecode } from '../../src/chain/test-usdc.ts';

describe('TestUSDC artifact', () => {
  const compiled = compileContract(testUsdcSource);

  it('has the bytecode and ABI the source compiles to', () => {
    expect(testUsdcBytecode).toBe(compiled.bytecode);
    expect(testUsdcAbi).toEqual(compiled.abi);
    expect(readFileSync(testUsdcSource.artifactPath, 'utf8')).toBe(renderArtifact(compiled));
  });

  it('has the typed ABI module the source compiles to', async () => {
    expect(readFileSync(testUsdcSource.abiModule!.path, 'utf8')).toBe(await renderAbiModule(testUsdcSource, compiled));
  });

  it('carries no metadata hash (the same bytes from any checkout)', () => {
    // bytecodeHash "none" leaves only the solc version in the CBOR tail: a1 64 'solc' 43 <version>.
    expect(compiled.bytecode).toMatch(/a164736f6c6343[0-9a-f]{6}000a$/);
  });
});
