// Builds the committed Permit2 fixture (src/chain/contracts/Permit2.runtime.json) from Uniswap's npm package: no
// package here ships Permit2's creation code, but @uniswap/v4-periphery carries its runtime code for Foundry tests.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { domainSeparator, sha256, toHex, type Address, type Hex } from 'viem';

export const permit2Package = {
  name: '@uniswap/v4-periphery',
  version: '1.0.3',
  // npm's integrity of the tarball, checked when the script downloads it again.
  integrity: 'sha512-JxLL0Djv9XcMvI2PatEnWrCrxuEaYNVhHxstndBOP+aJfh1XLg5ec8SDZ0xyoVfg2ElJTvuKpBgnu90bNValsg==',
  /** A Foundry helper that etches Permit2's runtime code, a hex"…" literal, at the canonical address. */
  file: 'package/lib/permit2/test/utils/DeployPermit2.sol',
  licenseFile: 'package/lib/permit2/LICENSE',
} as const;

export const permit2FixturePath = fileURLToPath(new URL('./contracts/Permit2.runtime.json', import.meta.url));

/** Where the compiler that made the literal deployed it: Foundry's first test contract address, on chain 31337. */
const compiledAt = { chainId: 31337, address: '0xF62849F9A0B5Bf2913b396098F7c7019b51A820a' as Address };

export interface ImmutableWord {
  /** Byte offset in the runtime code. */
  offset: number;
  value: Hex;
}

export interface Permit2Fixture {
  contractName: 'Permit2';
  source: { package: string; version: string; integrity: string; file: string; note: string };
  license: { spdx: 'MIT'; file: string; text: string };
  sha256: Hex;
  length: number;
  /** EIP712's cached chain id and domain separator, which setCode (running no constructor) cannot fill in. */
  immutables: { cachedChainId: ImmutableWord; cachedDomainSeparator: ImmutableWord };
  runtimeBytecode: Hex;
}

export function permit2Domain(chainId: number, verifyingContract: Address) {
  return { name: 'Permit2', chainId, verifyingContract } as const;
}

/** The one 32-byte word equal to `value`: a second occurrence would make patching ambiguous. */
function findWord(code: Hex, value: Hex): ImmutableWord {
  const hex = code.slice(2);
  const needle = value.slice(2);
  const offsets: number[] = [];
  for (let at = hex.indexOf(needle); at >= 0; at = hex.indexOf(needle, at + 1)) {
    if (at % 2 === 0) offsets.push(at / 2);
  }
  if (offsets.length !== 1) throw new Error(`${value} occurs ${offsets.length} times in Permit2's runtime code`);
  return { offset: offsets[0]!, value };
}

export function permit2FixtureFromPackage(deployPermit2Source: string, licenseText: string): Permit2Fixture {
  const literal = /hex"([0-9a-f]+)"/.exec(deployPermit2Source)?.[1];
  if (!literal) throw new Error(`no hex"…" literal in ${permit2Package.file}`);
  const runtimeBytecode: Hex = `0x${literal}`;
  const compiledDomain = permit2Domain(compiledAt.chainId, compiledAt.address);
  return {
    contractName: 'Permit2',
    source: {
      package: permit2Package.name,
      version: permit2Package.version,
      integrity: permit2Package.integrity,
      file: permit2Package.file,
      note: `runtime code compiled for chain ${compiledAt.chainId} at ${compiledAt.address}; \`npm run extract-permit2\` extracts it again`,
    },
    license: { spdx: 'MIT', file: permit2Package.licenseFile, text: licenseText },
    sha256: sha256(runtimeBytecode),
    length: (runtimeBytecode.length - 2) / 2,
    immutables: {
      cachedChainId: findWord(runtimeBytecode, toHex(compiledAt.chainId, { size: 32 })),
      cachedDomainSeparator: findWord(runtimeBytecode, domainSeparator({ domain: compiledDomain })),
    },
    runtimeBytecode,
  };
}

export function readPermit2Fixture(): Permit2Fixture {
  return JSON.parse(readFileSync(permit2FixturePath, 'utf8')) as Permit2Fixture;
}

export function renderPermit2Fixture(fixture: Permit2Fixture): string {
  return `${JSON.stringify(fixture, null, 2)}\n`;
}
