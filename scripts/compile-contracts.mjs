// `npm run compile-contracts`: compiles src/chain/contracts/TestUSDC.sol with solc-js (offline) and writes the
// committed artifact next to it (TestUSDC.json, and its ABI as a TypeScript constant for viem's types).
// test/chain/test-usdc-artifact.test.ts fails when they and the source disagree.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from './setup.mjs';

const { register } = await import('tsx/esm/api');
register();
const compiler = await import(pathToFileURL(join(root, 'src/chain/compile-test-usdc.ts')).href);
const artifact = compiler.compileTestUsdc();
writeFileSync(compiler.testUsdcArtifactPath, compiler.renderArtifact(artifact));
writeFileSync(compiler.testUsdcAbiModulePath, await compiler.renderAbiModule(artifact));
console.log(
  `wrote ${compiler.testUsdcArtifactPath} (${artifact.compiler}, ${(artifact.bytecode.length - 2) / 2} bytes)`,
);
