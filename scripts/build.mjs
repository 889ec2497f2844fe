// `npm run build`: compiles the service (src, cluster, workflows, activities) into dist/ with tsc, copies the files tsc does
// not emit (workers' .mjs, contract artifacts), and bundles the workflows once into dist/workflow-bundle.js, so
// `npm start` runs JavaScript and its worker starts without webpack. ensureBuild() (setup) rebuilds only when the
// sources changed; a lock keeps processes started together (the cluster's) from building over each other.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(import.meta.url), '..', '..');
export const distDir = join(root, 'dist');
const stampFile = join(distDir, '.build-hash');
const lockDir = join(root, '.build-lock');
const sourceDirs = ['src', 'cluster', 'workflows', 'activities'];
// The console is built with the service: its typed client is generated from the service's OpenAPI document (src).
const consoleDirs = ['console/src', 'console/scripts'];
const inputs = [
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'scripts/build.mjs',
  'console/package-lock.json',
  'console/index.html',
  'console/tsconfig.json',
  'console/vite.config.ts',
];

/** Every source file's path and contents: a change to any of them (or a new or deleted one) changes the hash. */
function sourcesHash() {
  const hash = createHash('sha256');
  const files = [...sourceDirs, ...consoleDirs].flatMap((dir) =>
    readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath ?? entry.path, entry.name)),
  );
  for (const file of [...files.sort(), ...inputs.map((name) => join(root, name))])
    hash.update(file).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

const isCurrent = (hash) => existsSync(stampFile) && readFileSync(stampFile, 'utf8').trim() === hash;

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** Waits for the build lock; a lock whose process is gone is taken over. */
function acquireLock() {
  for (const deadline = Date.now() + 10 * 60_000; Date.now() < deadline;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(join(lockDir, 'pid'), String(process.pid));
      return;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      const holder = Number(existsSync(join(lockDir, 'pid')) ? readFileSync(join(lockDir, 'pid'), 'utf8') : NaN);
      if (Number.isInteger(holder) && !alive(holder)) rmSync(lockDir, { recursive: true, force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  throw new Error(`another build has held ${lockDir} for 10 minutes; remove it if no build is running`);
}

/** Everything under the source directories that tsc does not emit (it emits .ts as .js and the JSON it imports). */
function copyAssets(outDir) {
  for (const dir of sourceDirs)
    cpSync(join(root, dir), join(outDir, dir), {
      recursive: true,
      filter: (source) => !source.endsWith('.ts') && !source.endsWith('.schema-hash'),
    });
}

/** A heap cap set for the service (docs/deploying.md, Memory) is not the build's: tsc needs more than such a cap. */
export function buildEnvironment(env) {
  const nodeOptions = (env.NODE_OPTIONS ?? '').replace(/--max-old-space-size[= ]\S+/g, '').replace(/\s+/g, ' ');
  return { ...env, NODE_OPTIONS: nodeOptions.trim() };
}
const buildEnv = buildEnvironment(process.env);

function compile(outDir, hash) {
  const node = process.execPath;
  execFileSync(
    node,
    [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json', '--outDir', outDir],
    {
      cwd: root,
      env: buildEnv,
      stdio: 'inherit',
    },
  );
  copyAssets(outDir);
  // In a process of its own: webpack's memory is not the caller's (setup runs inside `npm start`).
  execFileSync(
    node,
    [
      join(root, 'scripts', 'bundle-workflows.mjs'),
      join(outDir, 'workflows', 'index.js'),
      join(outDir, 'workflow-bundle.js'),
    ],
    {
      cwd: root,
      env: buildEnv,
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  // The console's build (console/dist): its client from the OpenAPI document, its type check, Vite.
  execFileSync('npm', ['run', 'build', '--prefix', join(root, 'console'), '--silent'], {
    cwd: root,
    env: buildEnv,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  writeFileSync(join(outDir, '.build-hash'), hash);
}

/** Builds dist/; with `onlyIfStale`, not when it was built from these very sources (checked under the lock). */
export function build({ onlyIfStale = false } = {}) {
  acquireLock();
  try {
    const hash = sourcesHash();
    if (onlyIfStale && isCurrent(hash)) return;
    const outDir = join(root, `.dist-${process.pid}`);
    rmSync(outDir, { recursive: true, force: true });
    try {
      compile(outDir, hash);
      rmSync(distDir, { recursive: true, force: true });
      renameSync(outDir, distDir);
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

export function ensureBuild() {
  if (isCurrent(sourcesHash())) return;
  console.log('[setup] compiling the service (npm run build)…');
  build({ onlyIfStale: true });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) build();
