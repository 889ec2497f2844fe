// Object storage of the embedded default: a local directory the API serves under /files/. Keys are
// `<task id>/<file name>`, so writing an output twice (an activity retried) overwrites, never duplicates.
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

export interface Storage {
  /** Where the API serves files from. */
  root: string;
  put(key: string, data: Buffer): Promise<string>;
  url(key: string): string;
}

/** `publicBaseUrl` may be a function, for a server whose address is known only once it listens. */
export function createLocalStorage(root: string, publicBaseUrl: string | (() => string)): Storage {
  const base = typeof publicBaseUrl === 'string' ? () => publicBaseUrl : publicBaseUrl;
  const directory = resolve(root);
  const pathOf = (key: string) => {
    const path = resolve(directory, key);
    if (!path.startsWith(`${directory}/`)) throw new Error(`storage key escapes the storage root: ${key}`);
    return path;
  };
  const url = (key: string) => `${base()}/files/${key.split('/').map(encodeURIComponent).join('/')}`;
  return {
    root: directory,
    url,
    async put(key, data) {
      const path = pathOf(key);
      await mkdir(dirname(path), { recursive: true });
      // Write then rename: a reader never sees half a file.
      const partial = `${path}.${process.pid}.partial`;
      await writeFile(partial, data);
      await rename(partial, path);
      return url(key);
    },
  };
}

export const filesDirectory = (dataDir: string) => join(dataDir, 'files');
