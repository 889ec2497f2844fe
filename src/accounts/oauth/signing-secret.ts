// The secret OAuth's and the wallet sessions' tokens are signed with comes from configuration (OAUTH_TOKEN_SECRET), never
// from the database: whoever reads a table must not be able to mint tokens. Each kind of token is signed with a key
// of its own, derived from the secret (HKDF), so a token of one kind never verifies as another.
import { hkdfSync, randomBytes } from 'node:crypto';
import { chmod, link, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const tokenKinds = ['access_token', 'authorization_request', 'wallet_session', 'refresh_successor'] as const;
export type TokenKind = (typeof tokenKinds)[number];
export type TokenKeys = Readonly<Record<TokenKind, Uint8Array>>;

export function tokenKeys(secret: string): TokenKeys {
  const derive = (kind: TokenKind) =>
    new Uint8Array(hkdfSync('sha256', secret, 'generation-gateway tokens', `${kind} v1`, 32));
  return Object.fromEntries(tokenKinds.map((kind) => [kind, derive(kind)])) as Record<TokenKind, Uint8Array>;
}

export const developmentSecretFile = (dir: string) => join(dir, 'oauth-token-secret');

/** The development secret kept in `dir` (0600), made on first start: tokens outlive a restart of `npm start`. */
export async function developmentTokenSecret(dir: string): Promise<string> {
  const file = developmentSecretFile(dir);
  const existing = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (existing !== undefined && existing.trim().length >= 32) {
    if (((await stat(file)).mode & 0o077) !== 0) await chmod(file, 0o600);
    return existing.trim();
  }
  await mkdir(dir, { recursive: true });
  const secret = randomBytes(32).toString('hex');
  // Written whole beside it, then linked into place: a start racing this one reads either no file or all of one.
  const draft = `${file}.${randomBytes(6).toString('hex')}`;
  await writeFile(draft, `${secret}\n`, { mode: 0o600 });
  try {
    if (existing !== undefined) await rename(draft, file);
    else await link(draft, file);
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return (await readFile(file, 'utf8')).trim();
  } finally {
    await rm(draft, { force: true });
  }
}
