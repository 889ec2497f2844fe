// A JSON file one process writes for others to find it by (the local chain, the running service): written once the
// thing is up, removed when it stops, read and checked against its schema.
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { z } from 'zod';

export async function writeAnnouncement(file: string, info: object): Promise<string> {
  await mkdir(dirname(file), { recursive: true });
  // Its owner's only: the cluster's runtime.json names its database with the password.
  await writeFile(file, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return file;
}

export async function removeAnnouncement(file: string): Promise<void> {
  await rm(file, { force: true });
}

/** The file's content, or undefined when there is none; `what` names it when it is not what the schema says. */
export async function readAnnouncement<S extends z.ZodType>(
  file: string,
  schema: S,
  what: string,
): Promise<z.infer<S> | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let parsed;
  try {
    parsed = schema.safeParse(JSON.parse(text));
  } catch {
    parsed = undefined;
  }
  if (!parsed?.success) throw new Error(`${file} is not ${what}`);
  return parsed.data;
}
