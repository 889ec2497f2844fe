// Keys their holders manage (POST/GET/PATCH/DELETE /keys): a key manages itself and the keys of its account within its
// own scopes, policy and expiry (with a policy, only the keys it made, and theirs), never a key above it; it never
// makes a key wider than itself, never widens one, and never changes its own budget.
import type { PrismaClient } from '../db/prisma.ts';
import { DomainError, NotFoundError } from '../domain/errors.ts';
import { type AccountKind, Prisma } from '../generated/prisma/client.ts';
import { type ApiKeyRow, issueApiKey, makersOfKey, type PrincipalKey, principalKeyOf } from './api-keys.ts';
import { cappedLimits, chainFailure, chainRowSelect, makersOf } from './key-chain.ts';
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

/** Refused: a key asked to change its own budget, which only a key above it may set. */
export class OwnBudgetError extends DomainError {
  override name = 'OwnBudgetError';
  constructor() {
    super('forbidden', "A key cannot change its own budget: the key that made it (or the account's owner) can.", {
      details: { field: 'policy.budget' },
    });
  }
}

/** Refused: the calling key (or a key above it) was revoked or expired while the request ran. */
export class HolderEndedError extends DomainError {
  override name = 'HolderEndedError';
  constructor(failure: 'revoked' | 'expired') {
    super('unauthorized', `This API key has ${failure === 'revoked' ? 'been revoked' : 'expired'}.`);
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

/** A sub-key's scopes when the request names none: the holder's, but for `keys` (managing keys is given, not inherited). */
const defaultScopes = (holder: readonly KeyScope[]) => holder.filter((scope) => scope !== 'keys');

/**
 * Serialises the account's key changes: a sub-key made while its maker is revoked either lands before the revocation
 * (which then reaches it) or sees its maker revoked, and is refused.
 */
async function lockAccountKeys(tx: Prisma.TransactionClient, holder: KeyHolder): Promise<void> {
  await tx.$queryRaw`SELECT 1 FROM accounts WHERE id = ${holder.account.id} FOR NO KEY UPDATE`;
  const chain = await tx.apiKey.findMany({
    where: { id: { in: [holder.key.id, ...holder.key.ancestorIds] } },
    select: chainRowSelect,
  });
  const failure = chainFailure(chain, new Date());
  if (failure) throw new HolderEndedError(failure);
}

/** A new key of the holder's account, within the holder's scopes, policy and expiry (each by default). */
export async function createKey(
  prisma: PrismaClient,
  holder: KeyHolder,
  request: KeyChanges & { name: string; oauthClientId?: string },
  maxRatePerMinute: number | null,
) {
  const wanted: KeyLimits = {
    scopes: request.scopes ?? defaultScopes(holder.key.scopes),
    policy: inheritedPolicy(request.policy, holder.key.policy),
    expiresAt: request.expiresAt === undefined ? holder.key.expiresAt : request.expiresAt,
  };
  checkWithin(wanted, limitsOf(holder.key), maxRatePerMinute);
  return prisma.$transaction(async (tx) => {
    await lockAccountKeys(tx, holder);
    return issueApiKey(tx, {
      accountId: holder.account.id,
      kind: holder.account.kind,
      name: request.name,
      expiresAt: wanted.expiresAt,
      scopes: wanted.scopes as KeyScope[],
      policy: wanted.policy,
      parentId: holder.key.id,
      ...(request.oauthClientId !== undefined && { oauthClientId: request.oauthClientId }),
    });
  });
}

type CandidateKey = ApiKeyRow & { limits: KeyLimits };

/**
 * Whether the holder manages a key: itself; never a key above it; with a policy, only the keys it made (and theirs);
 * else any key of the account whose limits (as its makers cap them) stay within the holder's.
 */
function manages(holder: KeyHolder, key: CandidateKey): boolean {
  if (key.id === holder.key.id) return true;
  if (key.accountId !== holder.account.id || holder.key.ancestorIds.includes(key.id)) return false;
  if (holder.key.policy && !key.ancestorIds.includes(holder.key.id)) return false;
  return widening(key.limits, limitsOf(holder.key)) === null;
}

/** Keys with their limits as their makers cap them: makers found among `known`, else read. */
async function withLimits(prisma: PrismaClient, rows: ApiKeyRow[], known: ApiKeyRow[] = rows): Promise<CandidateKey[]> {
  const knownById = new Map(known.map((row) => [row.id, row]));
  return Promise.all(
    rows.map(async (row) => {
      const found = makersOf(row.ancestorIds, knownById);
      const rowMakers = found.length === row.ancestorIds.length ? found : await makersOfKey(prisma, row);
      return { ...row, limits: cappedLimits(row, rowMakers) };
    }),
  );
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
  const rows = await prisma.apiKey.findMany({ where: { accountId: holder.account.id }, orderBy: { createdAt: 'asc' } });
  const managed = (await withLimits(prisma, rows)).filter((key) => manages(holder, key));
  return withWindows(prisma, managed);
}

/** One key the holder manages, with its budget window (GET /keys/{id}). */
export async function showKey(prisma: PrismaClient, holder: KeyHolder, keyId: string): Promise<KeyWithWindow> {
  const [shown] = await withWindows(prisma, [await findKey(prisma, holder, keyId)]);
  return shown!;
}

/** One key the holder manages; any other (another account's too) is not found. */
export async function findKey(prisma: PrismaClient, holder: KeyHolder, keyId: string): Promise<ApiKeyRow> {
  const row = await prisma.apiKey.findUnique({ where: { id: keyId } });
  const [key] = row && row.accountId === holder.account.id ? await withLimits(prisma, [row], []) : [];
  if (!row || !key || !manages(holder, key)) throw new NotFoundError(`No key ${keyId} that this API key manages.`);
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
  const policy = changes.policy === undefined ? undefined : inheritedPolicy(changes.policy, holder.key.policy);
  if (row.id === holder.key.id && policy !== undefined && !sameBudget(policy?.budget, current.policy?.budget))
    throw new OwnBudgetError();
  // What the request changes is checked against the holder; what it leaves as it was stays as it was.
  checkWithin(
    {
      scopes: changes.scopes ?? holder.key.scopes,
      policy: policy === undefined ? holder.key.policy : policy,
      expiresAt: changes.expiresAt === undefined ? holder.key.expiresAt : changes.expiresAt,
    },
    limitsOf(holder.key),
    maxRatePerMinute,
  );
  return prisma.$transaction(async (tx) => {
    await lockAccountKeys(tx, holder);
    return tx.apiKey.update({
      where: { id: row.id },
      data: {
        ...(changes.name !== undefined && { name: changes.name }),
        ...(changes.scopes !== undefined && { scopes: [...changes.scopes] }),
        ...(policy !== undefined && { policy: storedPolicyOf(policy) ?? Prisma.DbNull }),
        ...(changes.expiresAt !== undefined && { expiresAt: changes.expiresAt }),
      },
    });
  });
}

const sameBudget = (a: KeyPolicy['budget'], b: KeyPolicy['budget']) =>
  a?.amountMicros === b?.amountMicros && a?.window === b?.window;

/** Revokes a key and every key below it (a sub-agent's keys go with the key that made them). */
export async function revokeKey(prisma: PrismaClient, holder: KeyHolder, keyId: string): Promise<ApiKeyRow> {
  const row = await findKey(prisma, holder, keyId);
  return prisma.$transaction(async (tx) => {
    // After the lock, so the keys made by a creation that held it are read and revoked too.
    await tx.$queryRaw`SELECT 1 FROM accounts WHERE id = ${row.accountId} FOR NO KEY UPDATE`;
    await tx.$executeRaw`
      UPDATE api_keys SET revoked_at = ${new Date()}
      WHERE id IN (${keysBelowSql(row.accountId, row.id)}) AND revoked_at IS NULL`;
    return tx.apiKey.findUniqueOrThrow({ where: { id: row.id } });
  });
}

/** The calling key with its budget window's spend (GET /keys/current); without a budget, its whole life's. */
export async function currentKey(prisma: PrismaClient, holder: KeyHolder): Promise<KeyWithWindow> {
  const [current] = await withWindows(prisma, [
    await prisma.apiKey.findUniqueOrThrow({ where: { id: holder.key.id } }),
  ]);
  return current!;
}
