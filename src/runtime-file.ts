// Where other processes (genctl, an operator's `temporal` command) find what `npm start` runs and on which ports:
// <DATA_DIR>/runtime.json, written once the service is up and removed when it stops. A file whose process is gone
// (a crash) is ignored.
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { readAnnouncement, removeAnnouncement, writeAnnouncement } from './infra/announcement-file.ts';

const runtimeInfoSchema = z.object({
  pid: z.number().int().positive(),
  /** `cluster`: `npm run cluster`, whose processes each have a DATA_DIR of their own under this one. */
  role: z.enum(['all', 'api', 'worker', 'cluster']),
  /** The API's public address (api and all roles). */
  apiUrl: z.url().optional(),
  /** Only the embedded PostgreSQL's URL: a configured DATABASE_URL (and its password) is not copied here. */
  databaseUrl: z.string().optional(),
  temporalAddress: z.string().min(1),
  temporalNamespace: z.string().min(1),
  /** The embedded Temporal dev server's Web UI. */
  temporalUiUrl: z.url().optional(),
});

export type RuntimeInfo = z.infer<typeof runtimeInfoSchema>;

export const runtimeFile = (dataDir: string) => join(resolve(dataDir), 'runtime.json');

export const writeRuntimeFile = (dataDir: string, info: RuntimeInfo) => writeAnnouncement(runtimeFile(dataDir), info);

export const removeRuntimeFile = (dataDir: string) => removeAnnouncement(runtimeFile(dataDir));

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The service `npm start` announced under this DATA_DIR, if it still runs; undefined otherwise. */
export async function readRuntimeFile(dataDir: string): Promise<RuntimeInfo | undefined> {
  const info = await readAnnouncement(runtimeFile(dataDir), runtimeInfoSchema, 'a runtime description');
  return info && alive(info.pid) ? info : undefined;
}
