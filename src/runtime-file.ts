// Where other processes (genctl, an operator's `temporal` command) find what `npm start` runs and on which ports:
// <DATA_DIR>/runtime.json, written once the service is up and removed when it stops. A file whose process is gone
// (a crash) is ignored.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';

const runtimeInfoSchema = z.object({
  pid: z.number().int().positive(),
  role: z.enum(['all', 'api', 'worker']),
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

export async function writeRuntimeFile(dataDir: string, info: RuntimeInfo): Promise<string> {
  const file = runtimeFile(dataDir);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(info, null, 2)}\n`);
  return file;
}

export async function removeRuntimeFile(dataDir: string): Promise<void> {
  await rm(runtimeFile(dataDir), { force: true });
}

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
  let text: string;
  try {
    text = await readFile(runtimeFile(dataDir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let parsed;
  try {
    parsed = runtimeInfoSchema.safeParse(JSON.parse(text));
  } catch {
    parsed = undefined;
  }
  if (!parsed?.success) throw new Error(`${runtimeFile(dataDir)} is not a runtime description`);
  return alive(parsed.data.pid) ? parsed.data : undefined;
}
