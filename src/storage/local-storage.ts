// The embedded default: files under DATA_DIR/files, which the API serves itself under /files/.
import { join, resolve } from 'node:path';
import { createLocalObjectStore } from './local-object-store.ts';
import { createStorage, type Storage } from './storage.ts';

export function createLocalStorage(root: string, publicBaseUrl: string | (() => string)): Storage {
  return createStorage(createLocalObjectStore(root), publicBaseUrl, { root: resolve(root) });
}

export const filesDirectory = (dataDir: string) => join(dataDir, 'files');
