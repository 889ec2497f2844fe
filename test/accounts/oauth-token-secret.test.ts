// The OAuth token secret outside production (issue 55, point 7): made once in the data directory, readable by its owner
// only, and the same at every later start, so tokens outlive a restart; each kind of token gets a key of its own.
import { mkdtemp, rm, stat, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import {
  developmentSecretFile,
  developmentTokenSecret,
  tokenKeys,
  tokenKinds,
} from '../../src/accounts/oauth/signing-secret.ts';

let dir = '';
afterEach(() => rm(dir, { recursive: true, force: true }));

it('makes the development secret on first start (0600) and reads the same one at the next', async () => {
  dir = await mkdtemp(join(tmpdir(), 'oauth-secret-'));
  const first = await developmentTokenSecret(join(dir, 'data'));
  expect(first).toMatch(/^[0-9a-f]{64}$/);
  const file = developmentSecretFile(join(dir, 'data'));
  expect((await stat(file)).mode & 0o777).toBe(0o600);
  await chmod(file, 0o644);
  expect(await developmentTokenSecret(join(dir, 'data'))).toBe(first);
  expect((await stat(file)).mode & 0o777).toBe(0o600);
  // Two starts racing each other end with the one secret.
  const racing = await Promise.all(Array.from({ length: 8 }, () => developmentTokenSecret(join(dir, 'racing'))));
  expect(new Set(racing).size).toBe(1);
});

it('derives a distinct key for each kind of token', () => {
  const keys = tokenKeys('s'.repeat(64));
  const distinct = new Set(tokenKinds.map((kind) => Buffer.from(keys[kind]).toString('hex')));
  expect(distinct.size).toBe(tokenKinds.length);
  expect(Buffer.from(tokenKeys('t'.repeat(64)).access_token)).not.toEqual(Buffer.from(keys.access_token));
});
