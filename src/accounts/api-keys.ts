// API keys: prefix + 32 random bytes (base62). Only the SHA-256 is stored; the key is shown once.
import { createHash } from 'node:crypto';
import type { PrismaClient } from '../db/prisma.ts';
import type { Account, AccountKind, Prisma } from '../generated/prisma/client.ts';
import { newId, randomBase62 } from '../domain/ids.ts';
import { type KeyPolicy, type KeyScope, keyScopes, storedPolicyOf } from './key-policy.ts';
import { cappedLimits, chainFailure, chainRateLimits, type ChainRow, chainRowSelect, makersOf } from './key-chain.ts';

type Db = PrismaClient | Prisma.TransactionClient;

export type KeyPrefix = 'rf_' | 'sk_' | 'vega_';
const prefixKinds: Record<KeyPrefix, AccountKind> = { rf_: 'agent', sk_: 'developer', vega_: 'developer' };
const keyShape = /^(rf_|sk_|vega_)[0-9A-Za-z]{32,128}$/;

export const hashApiKey = (key: string) => createHash('sha256').update(key).digest('hex');

/** What the API shows of a key: its prefix and the first eight random characters. */
export const displayPrefix = (key: string) => key.slice(0, key.indexOf('_') + 9);

export interface IssuedKey {
  id: string;
  /** The secret: returned once, never stored. */
  key: string;
  keyPrefix: string;
  name: string;
  expiresAt: Date | null;
  row: ApiKeyRow;
}

export type ApiKeyRow = Awaited<ReturnType<PrismaClient['apiKey']['create']>>;

/** A new key: every scope and no policy unless given (an account's first key, genctl's), or a sub-key's own. */
export async function issueApiKey(
  db: Db,
  input: {
    accountId: string;
    kind: AccountKind;
    name?: string;
    expiresAt?: Date | null;
    scopes?: readonly KeyScope[];
    policy?: KeyPolicy | null;
    parentId?: string;
    /** The OAuth client a consent screen granted it to. */
    oauthClientId?: string;
  },
): Promise<IssuedKey> {
  const key = `${input.kind === 'agent' ? 'rf_' : 'sk_'}${randomBase62(32)}`;
  const policy = storedPolicyOf(input.policy ?? null);
  const parent =
    input.parentId === undefined
      ? null
      : await db.apiKey.findUniqueOrThrow({ where: { id: input.parentId }, select: { ancestorIds: true } });
  const row = await db.apiKey.create({
    data: {
      id: newId('key'),
      accountId: input.accountId,
      name: input.name ?? 'default',
      keyHash: hashApiKey(key),
      keyPrefix: displayPrefix(key),
      expiresAt: input.expiresAt ?? null,
      scopes: [...(input.scopes ?? keyScopes)],
      ...(policy && { policy }),
      parentId: input.parentId ?? null,
      ancestorIds: parent ? [input.parentId!, ...parent.ancestorIds] : [],
      oauthClientId: input.oauthClientId ?? null,
    },
  });
  return { id: row.id, key, keyPrefix: row.keyPrefix, name: row.name, expiresAt: row.expiresAt, row };
}

/** What a request sees of its key: who it is, what it may do, and its limits. */
export interface PrincipalKey {
  id: string;
  name: string;
  keyPrefix: string;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  scopes: KeyScope[];
  policy: KeyPolicy | null;
  parentId: string | null;
  /** The keys above it (its makers), nearest first. */
  ancestorIds: string[];
  /** The per-minute limits its generations count against: its own and its makers', nearest first. */
  rateLimits: { keyId: string; perMinute: number }[];
}

/** A key's own limits, as its row holds them (authentication caps them by its makers': principalKeyIn). */
export const principalKeyOf = (row: ApiKeyRow): PrincipalKey => principalKeyIn(row, []);

/** A key as it acts: its scopes and expiry capped by its makers', their policy when it has none, their rate limits. */
function principalKeyIn(row: ApiKeyRow, makers: ChainRow[]): PrincipalKey {
  const limits = cappedLimits(row, makers);
  return {
    id: row.id,
    name: row.name,
    keyPrefix: row.keyPrefix,
    lastUsedAt: row.lastUsedAt,
    expiresAt: limits.expiresAt,
    scopes: limits.scopes as KeyScope[],
    policy: limits.policy,
    parentId: row.parentId,
    ancestorIds: row.ancestorIds,
    rateLimits: chainRateLimits(row, makers),
  };
}

export type AuthFailure = 'missing' | 'malformed' | 'unknown' | 'expired' | 'revoked';

export interface Principal {
  account: { id: string; kind: AccountKind; name: string; tier: string | null; status: string };
  /** Null for an x402 task token. */
  apiKey: PrincipalKey | null;
  /** A task token's one task: the caller may read that task and nothing else. */
  task?: string;
  /** Without a key, what the caller may do (a wallet's sign-in session: read); absent: what its key holds. */
  scopes?: readonly KeyScope[];
}

/** A key with a policy sees only the tasks it created; one without sees its account's (and a task token its one). */
export const ownTasksOnly = (principal: Principal): string | undefined =>
  principal.apiKey?.policy ? principal.apiKey.id : undefined;

export type AuthResult = { ok: true; principal: Principal } | { ok: false; failure: AuthFailure };

export async function authenticateApiKey(db: Db, key: string | undefined, now = new Date()): Promise<AuthResult> {
  if (!key) return { ok: false, failure: 'missing' };
  const shape = keyShape.exec(key);
  if (!shape) return { ok: false, failure: 'malformed' };
  const row = await db.apiKey.findUnique({ where: { keyHash: hashApiKey(key) }, include: { account: true } });
  // A hash collision across kinds is not a concern; a key whose prefix disagrees with its account is forged.
  if (!row || row.account.kind !== prefixKinds[shape[1] as KeyPrefix]) return { ok: false, failure: 'unknown' };
  return standingKey(db, row, now);
}

/** The key an OAuth access token names (its grant): the same checks as a key presented itself. */
export async function authenticateKeyById(db: Db, keyId: string, now = new Date()): Promise<AuthResult> {
  const row = await db.apiKey.findUnique({ where: { id: keyId }, include: { account: true } });
  return row ? standingKey(db, row, now) : { ok: false, failure: 'unknown' };
}

/** The makers of a key, nearest first (none for a key made at registration or by genctl). */
export async function makersOfKey(db: Db, key: { ancestorIds: string[] }): Promise<ChainRow[]> {
  if (key.ancestorIds.length === 0) return [];
  const rows = await db.apiKey.findMany({ where: { id: { in: key.ancestorIds } }, select: chainRowSelect });
  return makersOf(key.ancestorIds, rows);
}

/** A key stands while it and every key above it is neither revoked nor expired. */
async function standingKey(db: Db, row: ApiKeyRow & { account: Account }, now: Date): Promise<AuthResult> {
  const makers = await makersOfKey(db, row);
  const failure = chainFailure([row, ...makers], now);
  if (failure) return { ok: false, failure };
  const { account } = row;
  return {
    ok: true,
    principal: {
      account: { id: account.id, kind: account.kind, name: account.name, tier: account.tier, status: account.status },
      apiKey: principalKeyIn(row, makers),
    },
  };
}

/**
 * Records `last_used_at` without a database write per request: at most one write per key per interval in this
 * process (several processes may each write once per interval, which is fine for a "last used" hint).
 */
export function createLastUsedRecorder(
  db: PrismaClient,
  intervalMs = 60_000,
  onError: (error: unknown) => void = () => {},
) {
  const lastWritten = new Map<string, number>();
  return (keyId: string, at = new Date()) => {
    const previous = lastWritten.get(keyId);
    if (previous !== undefined && at.getTime() - previous < intervalMs) return false;
    lastWritten.set(keyId, at.getTime());
    // Monotonic, so writes that land out of order never move the time backwards.
    db.apiKey
      .updateMany({
        where: { id: keyId, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: at } }] },
        data: { lastUsedAt: at },
      })
      .catch(onError);
    return true;
  };
}

export async function listApiKeys(db: Db, accountId: string) {
  return db.apiKey.findMany({ where: { accountId }, orderBy: { createdAt: 'asc' } });
}

/** Revokes a key; revoking one twice keeps the first revocation time. */
export async function revokeApiKey(db: Db, keyId: string) {
  const key = await db.apiKey.findUnique({ where: { id: keyId } });
  if (!key) return null;
  if (key.revokedAt) return key;
  return db.apiKey.update({ where: { id: keyId }, data: { revokedAt: new Date() } });
}
