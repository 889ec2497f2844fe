// The cluster's own secrets, made once per data directory: its PostgreSQL password and its object store's S3
// identity. Random rather than fixed, so knowing this code opens nothing; kept in a file only its owner reads (0600)
// and read again on the next start of the same directory, whose database and store already hold them.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

const ClusterSecretsSchema = z.object({
  postgresPassword: z.string().regex(/^[0-9a-f]{48}$/),
  storeAccessKeyId: z.string().regex(/^[0-9A-Z]{20}$/),
  storeSecretAccessKey: z.string().regex(/^[\w-]{40}$/),
});

export type ClusterSecrets = z.infer<typeof ClusterSecretsSchema>;

export const clusterSecretsFile = (clusterDir: string) => join(clusterDir, 'secrets.json');

/** URL-safe characters only: the password goes into a database URL. */
const newSecrets = (): ClusterSecrets => ({
  postgresPassword: randomBytes(24).toString('hex'),
  storeAccessKeyId: randomBytes(10).toString('hex').toUpperCase(),
  storeSecretAccessKey: randomBytes(30).toString('base64url'),
});

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** This data directory's secrets: those of its earlier starts, or new ones written for the next. */
export async function clusterSecrets(clusterDir: string): Promise<ClusterSecrets> {
  const file = clusterSecretsFile(clusterDir);
  const existing = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (existing !== undefined) {
    // A copy made with a looser mode is tightened: the secrets open the database and every output.
    if (((await stat(file)).mode & 0o077) !== 0) await chmod(file, 0o600);
    const parsed = ClusterSecretsSchema.safeParse(parseJson(existing));
    if (!parsed.success)
      throw new Error(
        `${file} is not a secrets file of the cluster; its database and store were made with the secrets it held`,
      );
    return parsed.data;
  }
  await mkdir(clusterDir, { recursive: true });
  const secrets = newSecrets();
  // wx: never over a file another start has just written.
  await writeFile(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  return secrets;
}
