// A key is bound by every key above it (the keys that made it, `ancestor_ids`): it stands only while they all do, its
// scopes and expiry are capped by theirs, and a key without a policy under one that has one acts as limited by it.
import { type KeyLimits, type KeyScope, keyScopes, policyOf } from './key-policy.ts';

/** The columns of a key that bind the keys below it. */
export interface ChainRow {
  id: string;
  scopes: string[] | null;
  policy: unknown;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

export const chainRowSelect = { id: true, scopes: true, policy: true, expiresAt: true, revokedAt: true } as const;

/** A key's own scopes; a key of before scopes (a null column) has them all, as every key then could. */
export const scopesOf = (stored: string[] | null): KeyScope[] =>
  (stored ?? keyScopes).filter((scope): scope is KeyScope => (keyScopes as readonly string[]).includes(scope));

/** Why a chain (a key and its makers) no longer stands, or null while every key of it does. */
export function chainFailure(chain: readonly ChainRow[], now: Date): 'revoked' | 'expired' | null {
  if (chain.some((key) => key.revokedAt)) return 'revoked';
  if (chain.some((key) => key.expiresAt && key.expiresAt <= now)) return 'expired';
  return null;
}

/** The makers of a key, nearest first, from rows read in any order (a maker no longer stored is left out). */
export function makersOf<Row extends ChainRow>(
  ancestorIds: readonly string[],
  rows: readonly Row[] | ReadonlyMap<string, Row>,
): Row[] {
  const byId = rows instanceof Map ? rows : new Map((rows as readonly Row[]).map((row) => [row.id, row]));
  return ancestorIds.flatMap((id) => byId.get(id) ?? []);
}

/** A key's limits as its makers cap them: the scopes they all hold, the earliest expiry, the nearest policy. */
export function cappedLimits(own: ChainRow, makers: readonly ChainRow[]): KeyLimits {
  const earliest = (a: Date | null, b: Date | null) => (a && b ? (a < b ? a : b) : (a ?? b));
  return {
    scopes: scopesOf(own.scopes).filter((scope) => makers.every((maker) => scopesOf(maker.scopes).includes(scope))),
    expiresAt: makers.reduce((expiry, maker) => earliest(expiry, maker.expiresAt), own.expiresAt),
    policy: [own, ...makers].map((key) => policyOf(key.policy)).find((policy) => policy !== null) ?? null,
  };
}

/** Each per-minute rate limit a key's generations count against: its own and every maker's, nearest first. */
export const chainRateLimits = (own: ChainRow, makers: readonly ChainRow[]) =>
  [own, ...makers].flatMap((key) => {
    const perMinute = policyOf(key.policy)?.rateLimitPerMinute;
    return perMinute === undefined ? [] : [{ keyId: key.id, perMinute }];
  });
