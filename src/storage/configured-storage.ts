// The storage STORAGE_DRIVER names: the local directory under DATA_DIR, or the S3-compatible bucket.
import type { StorageConfig } from '../config/config.ts';
import { createLocalStorage, filesDirectory } from './local-storage.ts';
import { createS3ObjectStore } from './s3-object-store.ts';
import { createStorage, type Storage } from './storage.ts';

export function configuredStorage(
  config: StorageConfig,
  dataDir: string,
  publicBaseUrl: string | (() => string),
): Storage {
  if (config.driver === 'local') return createLocalStorage(filesDirectory(dataDir), publicBaseUrl);
  return createStorage(createS3ObjectStore(config.s3), publicBaseUrl);
}
