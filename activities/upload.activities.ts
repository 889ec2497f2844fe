// The upload expiry sweep's activity: a thin wrapper over src/uploads/uploads. Idempotent: a retried page finds
// the uploads it deleted already marked, and a missing file is no error.
import type { PrismaClient } from '../src/db/prisma.ts';
import { deleteExpiredUploads } from '../src/uploads/uploads.ts';
import type { Storage } from '../src/storage/storage.ts';
import { classifyFailures } from './failures.ts';

export interface UploadActivityDeps {
  prisma: PrismaClient;
  storage: Storage;
}

export function createUploadActivities(deps: UploadActivityDeps) {
  return classifyFailures({
    async deleteExpiredUploads(input: { limit: number }): Promise<{ deleted: string[] }> {
      return deleteExpiredUploads(deps, input.limit);
    },
  });
}

export type UploadActivities = ReturnType<typeof createUploadActivities>;
