// The startup banner's Storage line says where the files are and whether readers are sent presigned links.
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describedStorage } from '../../src/storage/configured-storage.ts';
import { testConfig } from '../helpers/config.ts';

it.each([
  [{ driver: 'local' as const }, join('/srv/data', 'files')],
  [{ driver: 's3' as const, s3: { bucket: 'outputs', keyPrefix: 'gw/' } }, 'S3 bucket outputs, keys under gw/'],
  [
    { driver: 's3' as const, s3: { bucket: 'outputs' }, presignedUrls: true, presignedUrlSeconds: 120 },
    'S3 bucket outputs, presigned links (120 s)',
  ],
])('describes %o as %j', (storage, line) => {
  expect(describedStorage(testConfig({ storage }).storage, '/srv/data')).toBe(line);
});
