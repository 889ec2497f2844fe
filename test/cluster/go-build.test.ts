// The cluster's Go builds outside the clone: a build kept in the machine's cache at the same pins is taken from there
// by any clone with no Go build at all (hard links); one at other pins is not. No Go runs here: PATH holds none, so
// a build attempted would fail naming Go.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  binPath,
  ensureGoBuild,
  type GoBuild,
  goBuildCacheDir,
  goBuildCacheRoot,
  goBuildIsCurrent,
  stampOf,
} from '../../cluster/go-build.ts';

const scratch = await mkdtemp(join(tmpdir(), 'gateway-go-build-'));
afterAll(() => rm(scratch, { recursive: true, force: true }));

let clones = 0;
/** A build as cluster-tools.ts declares one, landing in a clone of its own. */
const buildInClone = (version = 'v1.2.3'): GoBuild => ({
  what: 'the stand-in server',
  dir: join(scratch, `clone-${++clones}`, '.tools', 'stand-in'),
  module: 'example.com/stand-in',
  version,
  toolchain: 'go1.27.3',
  binaries: { 'cmd/server': 'stand-in-server' },
  files: { schema: 'schema' },
});

/** What a finished build leaves in the cache's folder for `build`. */
async function cacheHolding(build: GoBuild, root: string, stamp = stampOf(build)): Promise<string> {
  const dir = goBuildCacheDir(build, root);
  await mkdir(join(dir, 'bin'), { recursive: true });
  await mkdir(join(dir, 'schema'), { recursive: true });
  await writeFile(join(dir, 'bin', 'stand-in-server'), '#!/bin/sh\necho built\n', { mode: 0o755 });
  await writeFile(join(dir, 'schema', 'v1.sql'), 'CREATE TABLE t ();\n');
  await writeFile(join(dir, '.build'), `${stamp}\n`);
  return dir;
}

describe("the cluster's Go builds", () => {
  const path = process.env.PATH;
  beforeEach(async () => {
    process.env.PATH = await mkdtemp(join(scratch, 'no-go-'));
  });
  afterEach(() => {
    process.env.PATH = path;
  });

  it("are taken from the machine's cache at the same pins, by any clone, with no Go build", async () => {
    const cacheRoot = join(scratch, 'cache-shared');
    const first = buildInClone();
    const cached = await cacheHolding(first, cacheRoot);
    const lines: string[] = [];
    for (const build of [first, buildInClone()]) {
      expect(await ensureGoBuild(build, (line) => lines.push(line), { cacheRoot })).toBe(0);
      expect(await goBuildIsCurrent(build)).toBe(true);
      const [inClone, inCache] = [binPath(build, 'stand-in-server'), join(cached, 'bin', 'stand-in-server')];
      expect((await stat(inClone)).ino).toBe((await stat(inCache)).ino);
      expect(await readFile(join(build.dir, 'schema', 'v1.sql'), 'utf8')).toBe('CREATE TABLE t ();\n');
      expect(existsSync(`${build.dir}.partial-${process.pid}`)).toBe(false);
    }
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).toMatch(/^took the stand-in server v1\.2\.3 from the cache of builds/);
    // Once in place, the clone's own stamp answers: nothing more is read or linked.
    expect(await ensureGoBuild(first, (line) => lines.push(line), { cacheRoot })).toBe(0);
    expect(lines).toHaveLength(2);
  });

  it('are built again, never taken from the cache, at other pins', async () => {
    const cacheRoot = join(scratch, 'cache-other-pins');
    await cacheHolding(buildInClone('v1.2.2'), cacheRoot);
    const build = buildInClone('v1.2.3');
    // A folder under this build's key whose stamp names other pins (a damaged cache) does not count either.
    await cacheHolding(build, cacheRoot, stampOf(buildInClone('v1.2.2')));
    const lines: string[] = [];
    await expect(ensureGoBuild(build, (line) => lines.push(line), { cacheRoot })).rejects.toThrow(
      /`go` is not installed/,
    );
    expect(lines).toEqual([expect.stringMatching(/^building the stand-in server v1\.2\.3 from the Go module proxy/)]);
    // Nothing half-done in the clone or the cache.
    expect(existsSync(build.dir)).toBe(false);
    expect(existsSync(`${goBuildCacheDir(build, cacheRoot)}.partial-${process.pid}`)).toBe(false);
  });

  it('are built in the clone alone when the cache is off', async () => {
    const cacheRoot = join(scratch, 'cache-unused');
    const build = buildInClone();
    await cacheHolding(build, cacheRoot);
    await expect(ensureGoBuild(build, () => {}, { cacheRoot: null })).rejects.toThrow(/`go` is not installed/);
    expect(existsSync(build.dir)).toBe(false);
  });

  it("keep their cache in CLUSTER_BUILD_CACHE, else the user's cache folder", () => {
    expect(goBuildCacheRoot({ CLUSTER_BUILD_CACHE: '/srv/builds' })).toBe('/srv/builds');
    expect(goBuildCacheRoot({ CLUSTER_BUILD_CACHE: 'off', XDG_CACHE_HOME: '/x' })).toBeUndefined();
    expect(goBuildCacheRoot({ XDG_CACHE_HOME: '/x' })).toBe('/x/generation-gateway/go-builds');
    expect(goBuildCacheRoot({})).toBe(join(homedir(), '.cache', 'generation-gateway', 'go-builds'));
  });
});
