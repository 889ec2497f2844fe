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
  return createStorage(createS3ObjectStore(config.s3), publicBaseUrl, {
    presignedUrlSeconds: config.presignedUrls ? config.presignedUrlSeconds : undefined,
  });
}

/** The startup banner's line: where the files are, and whether readers get presigned links. */
export function describedStorage({ driver, s3, presignedUrls, presignedUrlSeconds }: StorageConfig, dataDir: string) {
  if (driver === 'local') return filesDirectory(dataDir);
  const keys = s3.keyPrefix ? `, keys under ${s3.keyPrefix}` : '';
  return `S3 bucket ${s3.bucket}${keys}${presignedUrls ? `, presigned links (${presignedUrlSeconds} s)` : ''}`;
}
