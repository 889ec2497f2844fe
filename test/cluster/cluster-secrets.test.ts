// `npm run cluster` makes its PostgreSQL password and S3 identity per data directory, never fixed ones: random, in a
// file only its owner reads, the same on every start of that directory, others elsewhere.
import { chmod, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clusterSecrets, clusterSecretsFile } from '../../cluster/cluster-secrets.ts';

const scratch = await mkdtemp(join(tmpdir(), 'gateway-cluster-secrets-'));
afterAll(() => rm(scratch, { recursive: true, force: true }));

const modeOf = async (file: string) => (await stat(file)).mode & 0o777;

describe("the cluster's secrets", () => {
  it('are made at the first start of a data directory, in a file only its owner reads', async () => {
    const clusterDir = join(scratch, 'first', 'cluster');
    const secrets = await clusterSecrets(clusterDir);
    expect(secrets.postgresPassword).toMatch(/^[0-9a-f]{48}$/);
    expect(secrets.storeAccessKeyId).toMatch(/^[0-9A-Z]{20}$/);
    expect(secrets.storeSecretAccessKey).toMatch(/^[\w-]{40}$/);
    expect(Object.values(secrets)).not.toContain('gateway');
    expect(await modeOf(clusterSecretsFile(clusterDir))).toBe(0o600);
    expect(JSON.parse(await readFile(clusterSecretsFile(clusterDir), 'utf8'))).toEqual(secrets);
  });

  it('are the same on the next start of that directory, and others in another', async () => {
    const clusterDir = join(scratch, 'again', 'cluster');
    const first = await clusterSecrets(clusterDir);
    expect(await clusterSecrets(clusterDir)).toEqual(first);
    const elsewhere = await clusterSecrets(join(scratch, 'elsewhere', 'cluster'));
    for (const name of Object.keys(first) as (keyof typeof first)[]) expect(elsewhere[name]).not.toBe(first[name]);
  });

  it('tighten a copy of the file made readable by others', async () => {
    const clusterDir = join(scratch, 'copied', 'cluster');
    const first = await clusterSecrets(clusterDir);
    await chmod(clusterSecretsFile(clusterDir), 0o644);
    expect(await clusterSecrets(clusterDir)).toEqual(first);
    expect(await modeOf(clusterSecretsFile(clusterDir))).toBe(0o600);
  });
});
