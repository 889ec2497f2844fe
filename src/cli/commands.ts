// What genctl does, one function per command, on the same services the API uses.
import { tiers } from '../domain/values.ts';
import type { PrismaClient } from '../db/prisma.ts';
import type { Tier } from '../generated/prisma/client.ts';
import { formatUsd, parseUsd } from '../domain/money.ts';
import { createDeveloper, getAccountSummary } from '../accounts/accounts.ts';
import { issueApiKey, listApiKeys, revokeApiKey } from '../accounts/api-keys.ts';
import { newId } from '../domain/ids.ts';
import { credit } from '../ledger/ledger.ts';

import { CommandError } from './command-error.ts';
import { type KeyOptionValues, policyFromOptions, scopesFromOptions } from './key-options.ts';

export { CommandError };

export interface Output {
  /** What --json prints. */
  json: unknown;
  /** What a person reads. */
  text: string;
}

export const iso = (date: Date | null) => date?.toISOString() ?? null;

/** `--limit` of the list commands: 50 unless given, at most 1000. */
export function limitOf(value: string | undefined): number {
  if (value === undefined) return 50;
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw new CommandError('--limit must be a whole number from 1 to 1000', 2);
  return limit;
}

/** Rows as aligned columns, two spaces apart (a row's empty last cells leave no trailing spaces). */
export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function required(value: string | undefined, flag: string): string {
  if (!value) throw new CommandError(`missing ${flag}`, 2);
  return value;
}

export async function createDeveloperCommand(
  prisma: PrismaClient,
  options: { name?: string; tier?: string },
): Promise<Output> {
  const name = required(options.name, '--name');
  const tier = options.tier ?? 'free';
  if (!(tiers as readonly string[]).includes(tier))
    throw new CommandError(`--tier must be one of ${tiers.join(', ')}`, 2);
  const { developerId, apiKey } = await createDeveloper(prisma, { name, tier: tier as Tier });
  return {
    json: {
      developer_id: developerId,
      name,
      tier,
      api_key: apiKey.key,
      key_id: apiKey.id,
      key_prefix: apiKey.keyPrefix,
    },
    text: `Developer ${developerId} (${name}, ${tier}) created.\nAPI key (shown once, store it now): ${apiKey.key}\nKey id: ${apiKey.id}`,
  };
}

async function requireAccount(prisma: PrismaClient, accountId: string) {
  const account = await prisma.account.findUnique({ where: { id: accountId } });
  if (!account) throw new CommandError(`no account ${accountId}`);
  return account;
}

export async function createKeyCommand(
  prisma: PrismaClient,
  options: { account?: string; name?: string; expiresInDays?: string } & KeyOptionValues,
): Promise<Output> {
  const account = await requireAccount(prisma, required(options.account, '--account'));
  if (account.kind === 'wallet')
    throw new CommandError(`${account.id} is an x402 payer's wallet: it pays per request and takes no API key`);
  let expiresAt: Date | null = null;
  if (options.expiresInDays !== undefined) {
    const days = Number(options.expiresInDays);
    if (!Number.isInteger(days) || days < 1)
      throw new CommandError('--expires-in-days must be a whole number of days, at least 1', 2);
    expiresAt = new Date(Date.now() + days * 86_400_000);
  }
  const policy = policyFromOptions(options);
  const key = await issueApiKey(prisma, {
    accountId: account.id,
    kind: account.kind,
    name: options.name ?? 'default',
    expiresAt,
    scopes: scopesFromOptions(options),
    policy,
  });
  return {
    json: {
      key_id: key.id,
      account_id: account.id,
      name: key.name,
      api_key: key.key,
      key_prefix: key.keyPrefix,
      expires_at: iso(key.expiresAt),
      scopes: key.row.scopes,
      policy: key.row.policy,
    },
    text: `Key ${key.id} created for ${account.id}${expiresAt ? `, expires ${expiresAt.toISOString()}` : ''}.\nAPI key (shown once, store it now): ${key.key}`,
  };
}

export async function listKeysCommand(prisma: PrismaClient, options: { account?: string }): Promise<Output> {
  const account = await requireAccount(prisma, required(options.account, '--account'));
  const keys = await listApiKeys(prisma, account.id);
  const rows = keys.map((key) => ({
    key_id: key.id,
    name: key.name,
    key_prefix: key.keyPrefix,
    created_at: iso(key.createdAt),
    last_used_at: iso(key.lastUsedAt),
    expires_at: iso(key.expiresAt),
    revoked_at: iso(key.revokedAt),
  }));
  const state = (row: (typeof rows)[number]) =>
    row.revoked_at ? 'revoked' : row.expires_at && row.expires_at < new Date().toISOString() ? 'expired' : 'active';
  return {
    json: { account_id: account.id, keys: rows.map((row) => ({ ...row, state: state(row) })) },
    text:
      rows.length === 0
        ? `${account.id} has no keys.`
        : rows
            .map(
              (row) =>
                `${row.key_id}  ${row.key_prefix}…  ${state(row).padEnd(7)}  ${row.name}  last used ${row.last_used_at ?? 'never'}`,
            )
            .join('\n'),
  };
}

export async function revokeKeyCommand(prisma: PrismaClient, keyId: string | undefined): Promise<Output> {
  const key = await revokeApiKey(prisma, required(keyId, 'the key id'));
  if (!key) throw new CommandError(`no key ${keyId}`);
  return {
    json: { key_id: key.id, revoked_at: iso(key.revokedAt) },
    text: `Key ${key.id} revoked at ${iso(key.revokedAt)}.`,
  };
}

export async function showAccountCommand(prisma: PrismaClient, accountId: string | undefined): Promise<Output> {
  const id = required(accountId, 'the account id');
  const summary = await getAccountSummary(prisma, id).catch(() => {
    throw new CommandError(`no account ${id}`);
  });
  const json = {
    account_id: summary.id,
    kind: summary.kind,
    name: summary.name,
    tier: summary.tier,
    status: summary.status,
    balance: formatUsd(summary.balance),
    reserved: formatUsd(summary.reserved),
    available: formatUsd(summary.available),
    total_spent: formatUsd(summary.spent),
    charged_requests: summary.charges,
    webhook_url: summary.webhookUrl,
    created_at: iso(summary.createdAt),
  };
  return {
    json,
    text: [
      `${json.account_id}  ${json.kind}${json.tier ? ` (${json.tier})` : ''}  ${json.name}  ${json.status}`,
      `balance ${json.balance} USD, reserved ${json.reserved}, available ${json.available}`,
      `spent ${json.total_spent} over ${json.charged_requests} charged requests`,
    ].join('\n'),
  };
}

export async function creditAccountCommand(
  prisma: PrismaClient,
  accountId: string | undefined,
  options: { amount?: string; reason?: string; idempotencyKey?: string },
): Promise<Output> {
  const account = await requireAccount(prisma, required(accountId, 'the account id'));
  let amount: bigint;
  try {
    amount = parseUsd(required(options.amount, '--amount'));
  } catch (error) {
    if (error instanceof CommandError) throw error;
    throw new CommandError(`--amount: ${(error as Error).message}`, 2);
  }
  if (amount <= 0n) throw new CommandError('--amount must be more than 0', 2);
  const reason = required(options.reason, '--reason');
  // Without a key of the operator's, each run is a new credit; the key is printed so a retry can reuse it.
  const idempotencyKey = options.idempotencyKey ?? `adjustment:${newId('key').slice(4)}`;
  const result = await credit(prisma, {
    accountId: account.id,
    amount,
    kind: 'adjustment',
    idempotencyKey,
    memo: reason,
  });
  return {
    json: {
      account_id: account.id,
      amount: formatUsd(amount),
      applied: result.applied,
      balance: formatUsd(result.balance),
      idempotency_key: idempotencyKey,
    },
    text: result.applied
      ? `Credited ${formatUsd(amount)} USD to ${account.id} (${reason}); balance ${formatUsd(result.balance)}. Idempotency key: ${idempotencyKey}`
      : `Already credited under ${idempotencyKey}; nothing moved. Balance ${formatUsd(result.balance)}.`,
  };
}
