// A key and every key under it (the keys it made, and theirs, at any depth): each key stores its makers in
// `ancestor_ids`, so this is one indexed read of the account's keys, not a recursive walk.
import { Prisma } from '../generated/prisma/client.ts';

/** `SELECT id` of the key and the keys below it, within its account. */
export const keysBelowSql = (accountId: string, keyId: string) => Prisma.sql`
  SELECT id FROM api_keys WHERE account_id = ${accountId} AND (id = ${keyId} OR ${keyId} = ANY(ancestor_ids))`;
