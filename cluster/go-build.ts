// Builds Go programs once from the Go module proxy into a project-local folder, and reuses them while its stamp names
// the same pins. Built in a scratch folder and renamed into place, so an interrupted build leaves nothing half-done.
// A finished build is also kept in a cache outside the clone, one folder per stamp (goBuildCacheRoot): another clone
// on the same machine, or this one after `git clean`, takes it from there (hard links, or a copy across file systems)
// with no Go build at all.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, copyFile, cp, link, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, join, resolve } from 'node:path';

export interface GoBuild {
  /** What the log calls it: "the Temporal server". */
  what: string;
  /** The folder it lands in (`bin/` and whatever `files` copies). */
  dir: string;
  module: string;
  version: string;
  toolchain: string;
  /** Package path inside the module → the binary's name under bin/. */
  binaries: Record<string, string>;
  /** Folders of the module's source to keep beside the binaries (the SQL schema): module path → path under dir. */
  files?: Record<string, string>;
  /**
   * Built inside the module's own source, as its main module: `go install pkg@version` refuses a module whose go.mod
   * has replace directives (SeaweedFS's has one).
   */
  asMainModule?: boolean;
}

/** What `.build` holds: the pins a build was made at. */
export const stampOf = ({ module, version, toolchain, binaries, files }: GoBuild) =>
  JSON.stringify({ module, version, toolchain, binaries, files });

function run(command: string, args: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let output = '';
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8_000));
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      keep(chunk);
    });
    child.stderr.on('data', keep);
    child.once('error', (error) =>
      fail(
        (error as NodeJS.ErrnoException).code === 'ENOENT'
          ? new Error(`\`${command}\` is not installed: the cluster's programs are built with Go (https://go.dev/dl)`)
          : error,
      ),
    );
    child.once('close', (code) =>
      code === 0 ? done(stdout) : fail(new Error(`${command} ${args.join(' ')} failed (${code}):\n${output.trim()}`)),
    );
  });
}

async function makeWritable(path: string): Promise<void> {
  const info = await stat(path);
  await chmod(path, info.mode | 0o200);
  if (info.isDirectory()) for (const entry of await readdir(path)) await makeWritable(join(path, entry));
}

async function buildInto(scratch: string, build: GoBuild): Promise<void> {
  await mkdir(join(scratch, 'bin'), { recursive: true });
  // GOWORK off and a neutral working folder: no go.mod or workspace of the caller's may steer the build.
  const env = { GOTOOLCHAIN: build.toolchain, CGO_ENABLED: '0', GOWORK: 'off' };
  const source = async () =>
    (
      JSON.parse(await run('go', ['mod', 'download', '-json', `${build.module}@${build.version}`], env)) as {
        Dir: string;
      }
    ).Dir;
  for (const [pkg, name] of Object.entries(build.binaries)) {
    if (build.asMainModule) {
      await run('go', ['build', '-o', join(scratch, 'bin', name), `./${pkg}`], env, await source());
      continue;
    }
    // One GOBIN per package: several of these modules name their main package `server`.
    const gobin = join(scratch, 'gobin', name);
    await run('go', ['install', `${build.module}/${pkg}@${build.version}`], { ...env, GOBIN: gobin });
    const [built] = await readdir(gobin);
    if (!built) throw new Error(`go install of ${build.module}/${pkg} produced no binary`);
    await rename(join(gobin, built), join(scratch, 'bin', name));
  }
  await rm(join(scratch, 'gobin'), { recursive: true, force: true });
  if (build.files) {
    const sourceDir = await source();
    for (const [from, to] of Object.entries(build.files)) {
      await cp(join(sourceDir, from), join(scratch, to), { recursive: true });
      // The module cache is read-only; our copy must be removable.
      await makeWritable(join(scratch, to));
    }
  }
  await writeFile(join(scratch, '.build'), `${stampOf(build)}\n`);
}

/** True when `dir` holds `build` at its pins (its stamp, and every binary). */
async function holdsBuild(dir: string, build: GoBuild): Promise<boolean> {
  const stamp = await readFile(join(dir, '.build'), 'utf8').catch(() => '');
  return (
    stamp.trim() === stampOf(build) && Object.values(build.binaries).every((name) => existsSync(join(dir, 'bin', name)))
  );
}

/** True when `build` is in place at its pins (nothing to do). */
export const goBuildIsCurrent = (build: GoBuild): Promise<boolean> => holdsBuild(build.dir, build);

export const binPath = (build: GoBuild, name: string) => join(build.dir, 'bin', name);

/**
 * The machine's cache of finished builds, shared by every clone: `CLUSTER_BUILD_CACHE` when set (`off`: none), else
 * `$XDG_CACHE_HOME/generation-gateway/go-builds` (`~/.cache/…` without XDG_CACHE_HOME).
 */
export function goBuildCacheRoot(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const chosen = env.CLUSTER_BUILD_CACHE?.trim();
  if (chosen === 'off') return undefined;
  if (chosen) return resolve(chosen);
  return join(env.XDG_CACHE_HOME?.trim() || join(homedir(), '.cache'), 'generation-gateway', 'go-builds');
}

/** The cache's folder for `build` at its pins: the clone's folder name and the stamp's digest. */
export const goBuildCacheDir = (build: GoBuild, root: string) =>
  join(root, `${basename(build.dir)}-${createHash('sha256').update(stampOf(build)).digest('hex').slice(0, 16)}`);

/** `from`'s files into `to` (new), hard-linked where the file system allows, copied where it does not. */
async function linkTree(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const [source, target] = [join(from, entry.name), join(to, entry.name)];
    if (entry.isDirectory()) await linkTree(source, target);
    else await link(source, target).catch(() => copyFile(source, target));
  }
}

/** Fills `dir` by `fill(scratch)` into a scratch folder beside it, renamed into place once whole. */
async function replaceAtomically(dir: string, fill: (scratch: string) => Promise<void>): Promise<void> {
  const scratch = `${dir}.partial-${process.pid}`;
  await rm(scratch, { recursive: true, force: true });
  try {
    await fill(scratch);
  } catch (error) {
    await rm(scratch, { recursive: true, force: true });
    throw error;
  }
  await rm(dir, { recursive: true, force: true });
  await rename(scratch, dir);
}

/** Builds `build` into the cache's `cached` folder (a build another process put there meanwhile is kept). */
async function buildIntoCache(build: GoBuild, cached: string): Promise<void> {
  await mkdir(join(cached, '..'), { recursive: true });
  const scratch = `${cached}.partial-${process.pid}`;
  await rm(scratch, { recursive: true, force: true });
  try {
    await buildInto(scratch, build);
    if (await holdsBuild(cached, build)) return;
    await rm(cached, { recursive: true, force: true });
    await rename(scratch, cached);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

export interface GoBuildOptions {
  /** The machine's cache of builds (default: goBuildCacheRoot()); null: build into the clone only. */
  cacheRoot?: string | null;
}

/**
 * Builds `build` unless it is current, or takes it from the machine's cache when that holds it at the same pins;
 * returns the seconds it took to build (0 when nothing was built).
 */
export async function ensureGoBuild(
  build: GoBuild,
  log: (line: string) => void,
  { cacheRoot = goBuildCacheRoot() ?? null }: GoBuildOptions = {},
): Promise<number> {
  if (await goBuildIsCurrent(build)) return 0;
  const cached = cacheRoot === null ? undefined : goBuildCacheDir(build, cacheRoot);
  if (cached && (await holdsBuild(cached, build))) {
    await replaceAtomically(build.dir, (scratch) => linkTree(cached, scratch));
    log(`took ${build.what} ${build.version} from the cache of builds (${cached})`);
    return 0;
  }
  const started = Date.now();
  log(`building ${build.what} ${build.version} from the Go module proxy (once per machine; it is reused afterwards)…`);
  if (cached) {
    await buildIntoCache(build, cached);
    await replaceAtomically(build.dir, (scratch) => linkTree(cached, scratch));
  } else await replaceAtomically(build.dir, (scratch) => buildInto(scratch, build));
  const seconds = Math.round((Date.now() - started) / 1000);
  log(`built ${build.what} in ${seconds} s`);
  return seconds;
}
