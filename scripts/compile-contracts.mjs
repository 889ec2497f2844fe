// `npm run compile-contracts`: compiles the contracts in src/chain/contracts with solc-js (offline) and writes the
// committed artifact next to each (and, where wanted, its ABI as a TypeScript constant for viem's types).
// test/chain/*-artifact.test.ts fail when they and the sources disagree.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from './setup.mjs';

const { register } = await import('tsx/esm/api');
register();
const compiler = await import(pathToFileURL(join(root, 'src/chain/compile-contracts.ts')).href);
for (const source of compiler.contractSources) {
  const artifact = compiler.compileContract(source);
  writeFileSync(source.artifactPath, compiler.renderArtifact(artifact));
  if (source.abiModule) writeFileSync(source.abiModule.path, await compiler.renderAbiModule(source, artifact));
  const code = artifact.bytecode ?? artifact.deployedBytecode;
  console.log(`wrote ${source.artifactPath} (${artifact.compiler}, ${(code.length - 2) / 2} bytes)`);
}
