// The embedded default's objects: files under one directory. Written then renamed, so a reader never sees half a file.
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ObjectNotFoundError, type ObjectStore, StoreUnavailableError } from './object-store.ts';

export function createLocalObjectStore(root: string): ObjectStore & { pathOf(key: string): string } {
  const directory = resolve(root);
  const pathOf = (key: string) => {
    const path = resolve(directory, key);
    if (!path.startsWith(`${directory}/`)) throw new Error(`storage key escapes the storage root: ${key}`);
    return path;
  };
  const placed = async (key: string, write: (partial: string) => Promise<void>) => {
    const path = pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    const partial = `${path}.${process.pid}.partial`;
    try {
      await write(partial);
      await rename(partial, path);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
  };
  const fileStat = async (key: string) => {
    const found = await stat(pathOf(key)).catch(() => null);
    return found?.isFile() ? found : null;
  };
  return {
    pathOf,
    put: (key, body) =>
      placed(key, (partial) =>
        pipeline(Buffer.isBuffer(body) ? Readable.from([body]) : body, createWriteStream(partial)),
      ),
    putFile: (key, source) => placed(key, (partial) => copyFile(source, partial)),
    async read(key) {
      try {
        return await readFile(pathOf(key));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new ObjectNotFoundError(key);
        throw error;
      }
    },
    async head(key) {
      const found = await fileStat(key);
      return found && { contentLength: found.size };
    },
    async open(key, { range } = {}) {
      const found = await fileStat(key);
      if (!found) return null;
      const body = createReadStream(pathOf(key), range);
      return { body, contentLength: range ? range.end - range.start + 1 : found.size };
    },
    async remove(...keys) {
      await Promise.all(keys.map((key) => rm(pathOf(key), { force: true })));
    },
    async check() {
      // A directory that cannot be made (a volume not mounted, no permission) is a store that is not there.
      await mkdir(directory, { recursive: true }).catch((error: unknown) => {
        throw new StoreUnavailableError(error);
      });
    },
    // The directory goes too (and any partial file a crashed write left), or every task would leave one behind.
    async removeFolders(...folders) {
      await Promise.all(folders.map((folder) => rm(pathOf(folder), { recursive: true, force: true })));
    },
  };
}
