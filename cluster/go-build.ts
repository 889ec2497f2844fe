// Builds Go programs once from the Go module proxy into a project-local folder, and reuses them while its stamp names
// the same pins. Built in a scratch folder and renamed into place, so an interrupted build leaves nothing half-done.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, cp, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

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

const stampOf = ({ module, version, toolchain, binaries, files }: GoBuild) =>
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

/** True when `build` is in place at its pins (nothing to do). */
export async function goBuildIsCurrent(build: GoBuild): Promise<boolean> {
  const stamp = await readFile(join(build.dir, '.build'), 'utf8').catch(() => '');
  return (
    stamp.trim() === stampOf(build) && Object.values(build.binaries).every((name) => existsSync(binPath(build, name)))
  );
}

export const binPath = (build: GoBuild, name: string) => join(build.dir, 'bin', name);

/** Builds `build` unless it is current; returns the seconds it took (0 when reused). */
export async function ensureGoBuild(build: GoBuild, log: (line: string) => void): Promise<number> {
  if (await goBuildIsCurrent(build)) return 0;
  const started = Date.now();
  log(`building ${build.what} ${build.version} from the Go module proxy (once; it is reused afterwards)…`);
  const scratch = `${build.dir}.partial-${process.pid}`;
  await rm(scratch, { recursive: true, force: true });
  try {
    await buildInto(scratch, build);
  } catch (error) {
    await rm(scratch, { recursive: true, force: true });
    throw error;
  }
  await rm(build.dir, { recursive: true, force: true });
  await rename(scratch, build.dir);
  const seconds = Math.round((Date.now() - started) / 1000);
  log(`built ${build.what} in ${seconds} s`);
  return seconds;
}
