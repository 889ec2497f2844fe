// Keys their holders manage (POST/GET/PATCH/DELETE /keys): a key without a policy manages every key of its account;
// one with a policy manages itself and the keys it made (and theirs), and never makes or makes itself wider.
import type { PrismaClient } from '../db/prisma.ts';
import { DomainError, NotFoundError } from '../domain/errors.ts';
import { type AccountKind, Prisma } from '../generated/prisma/client.ts';
import { type ApiKeyRow, issueApiKey, type PrincipalKey, principalKeyOf } from './api-keys.ts';
import { type KeyLimits, type KeyPolicy, type KeyScope, storedPolicyOf, widening } from './key-policy.ts';
import { type KeyWindow, keyWindows } from './key-spend.ts';
import { keysBelowSql } from './keys-below.ts';

/** The key a request came with, and its account. */
export interface KeyHolder {
  account: { id: string; kind: AccountKind };
  key: PrincipalKey;
}

export interface KeyChanges {
  name?: string;
  scopes?: KeyScope[];
  /** null: no policy (only a key without one may give that). */
  policy?: KeyPolicy | null;
  expiresAt?: Date | null;
}

/** Refused: what a key asked for goes beyond what it holds. */
export class KeyTooWideError extends DomainError {
  override name = 'KeyTooWideError';
  constructor(field: string, reason: string) {
    super('forbidden', `A key cannot give more than it holds: ${field} goes beyond it (${reason}).`, {
      details: { field },
    });
  }
}

/** The account tier's own limit on generations a minute, which no key's policy may exceed. */
export class RateAboveTierError extends DomainError {
  override name = 'RateAboveTierError';
  constructor(limit: number) {
    super('validation_error', `Invalid body: policy.rate_limit_per_minute: at most ${limit}, the account's limit.`);
  }
}

const limitsOf = (key: Pick<PrincipalKey, 'scopes' | 'policy' | 'expiresAt'>): KeyLimits => key;

/** What the holder limits and the request leaves out is kept: a sub-key is never freed of a limit by omission. */
function inheritedPolicy(wanted: KeyPolicy | null | undefined, holder: KeyPolicy | null): KeyPolicy | null {
  if (wanted === null) return holder;
  return holder || wanted ? { ...holder, ...wanted } : null;
}

function checkWithin(wanted: KeyLimits, holder: KeyLimits, maxRatePerMinute: number | null): void {
  const wider = widening(wanted, holder);
  if (wider) throw new KeyTooWideError(wider.field, wider.reason);
  const rate = wanted.policy?.rateLimitPerMinute;
  if (rate !== undefined && maxRatePerMinute !== null && rate > maxRatePerMinute)
    throw new RateAboveTierError(maxRatePerMinute);
}

/** A new key of the holder's account, within the holder's scopes, policy and expiry (each by default). */
export async function createKey(
  prisma: PrismaClient,
  holder: KeyHolder,
  request: KeyChanges & { name: string; oauthClientId?: string },
  maxRatePerMinute: number | null,
) {
  const wanted: KeyLimits = {
    scopes: request.scopes ?? holder.key.scopes,
    policy: inheritedPolicy(request.policy, holder.key.policy),
    expiresAt: request.expiresAt === undefined ? holder.key.expiresAt : request.expiresAt,
  };
  checkWithin(wanted, limitsOf(holder.key), maxRatePerMinute);
  return issueApiKey(prisma, {
    accountId: holder.account.id,
    kind: holder.account.kind,
    name: request.name,
    expiresAt: wanted.expiresAt,
    scopes: wanted.scopes as KeyScope[],
    policy: wanted.policy,
    parentId: holder.key.id,
    ...(request.oauthClientId !== undefined && { oauthClientId: request.oauthClientId }),
  });
}

/** The ids of the keys a holder manages: all its account's, or (with a policy) itself and what it made, down. */
async function managedIds(prisma: PrismaClient, holder: KeyHolder): Promise<Set<string> | 'all'> {
  if (!holder.key.policy) return 'all';
  const rows = await prisma.$queryRaw<{ id: string }[]>`${keysBelowSql(holder.account.id, holder.key.id)}`;
  return new Set(rows.map((row) => row.id));
}

/** A key with its budget window, as the keys API lists and shows it. */
export interface KeyWithWindow {
  row: ApiKeyRow;
  window: KeyWindow;
}

async function withWindows(prisma: PrismaClient, rows: ApiKeyRow[]): Promise<KeyWithWindow[]> {
  const windows = await keyWindows(
    prisma,
    rows.map((row) => ({ id: row.id, budget: principalKeyOf(row).policy?.budget })),
  );
  return rows.map((row) => ({ row, window: windows.get(row.id)! }));
}

export async function listKeys(prisma: PrismaClient, holder: KeyHolder): Promise<KeyWithWindow[]> {
  const managed = await managedIds(prisma, holder);
  const rows = await prisma.apiKey.findMany({
    where: { accountId: holder.account.id, ...(managed !== 'all' && { id: { in: [...managed] } }) },
    orderBy: { createdAt: 'asc' },
  });
  return withWindows(prisma, rows);
}

/** One key the holder manages, with its budget window (GET /keys/{id}). */
export async function showKey(prisma: PrismaClient, holder: KeyHolder, keyId: string): Promise<KeyWithWindow> {
  const [shown] = await withWindows(prisma, [await findKey(prisma, holder, keyId)]);
  return shown!;
}

/** One key the holder manages; any other (another account's too) is not found. */
export async function findKey(prisma: PrismaClient, holder: KeyHolder, keyId: string): Promise<ApiKeyRow> {
  const managed = await managedIds(prisma, holder);
  const row = await prisma.apiKey.findUnique({ where: { id: keyId } });
  if (!row || row.accountId !== holder.account.id || (managed !== 'all' && !managed.has(row.id)))
    throw new NotFoundError(`No key ${keyId} that this API key manages.`);
  return row;
}

/** Changes a key's name, scopes, policy or expiry; never beyond the holder's, nor beyond its own when it is the holder. */
export async function updateKey(
  prisma: PrismaClient,
  holder: KeyHolder,
  keyId: string,
  changes: KeyChanges,
  maxRatePerMinute: number | null,
): Promise<ApiKeyRow> {
  const row = await findKey(prisma, holder, keyId);
  const current = principalKeyOf(row);
  const wanted: KeyLimits = {
    scopes: changes.scopes ?? current.scopes,
    policy: changes.policy === undefined ? current.policy : inheritedPolicy(changes.policy, holder.key.policy),
    expiresAt: changes.expiresAt === undefined ? current.expiresAt : changes.expiresAt,
  };
  checkWithin(wanted, limitsOf(holder.key), maxRatePerMinute);
  return prisma.apiKey.update({
    where: { id: row.id },
    data: {
      ...(changes.name !== undefined && { name: changes.name }),
      scopes: [...wanted.scopes],
      policy: storedPolicyOf(wanted.policy) ?? Prisma.DbNull,
      expiresAt: wanted.expiresAt,
    },
  });
}

/** Revokes a key and every key below it (a sub-agent's keys go with the key that made them). */
export async function revokeKey(prisma: PrismaClient, holder: KeyHolder, keyId: string): Promise<ApiKeyRow> {
  const row = await findKey(prisma, holder, keyId);
  const now = new Date();
  await prisma.$executeRaw`
    UPDATE api_keys SET revoked_at = ${now}
    WHERE id IN (${keysBelowSql(row.accountId, row.id)}) AND revoked_at IS NULL`;
  return prisma.apiKey.findUniqueOrThrow({ where: { id: row.id } });
}

/** The calling key with its budget window's spend (GET /keys/current); without a budget, its whole life's. */
export async function currentKey(prisma: PrismaClient, holder: KeyHolder): Promise<KeyWithWindow> {
  const [current] = await withWindows(prisma, [
    await prisma.apiKey.findUniqueOrThrow({ where: { id: holder.key.id } }),
  ]);
  return current!;
}
