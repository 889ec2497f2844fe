// Accounts: developers (created by operators) and agents (self-registered); balances as callers see them.
import { webhookSecretOf } from '../webhooks/secrets.ts';
import type { PrismaClient } from '../db/prisma.ts';
import type { AccountKind, Tier } from '../generated/prisma/client.ts';
import { issueApiKey, type IssuedKey } from './api-keys.ts';
import { newId, newWebhookSecret } from '../domain/ids.ts';
import { ledgerTotals } from '../ledger/ledger.ts';

export class AccountNotFoundError extends Error {
  override name = 'AccountNotFoundError';
  constructor(readonly accountId: string) {
    super(`no account ${accountId}`);
  }
}

export async function createDeveloper(
  prisma: PrismaClient,
  input: { name: string; tier: Tier; keyName?: string },
): Promise<{ developerId: string; apiKey: IssuedKey }> {
  return prisma.$transaction(async (tx) => {
    const developerId = newId('dev');
    await tx.account.create({
      data: { id: developerId, kind: 'developer', name: input.name, tier: input.tier, balance: { create: {} } },
    });
    const apiKey = await issueApiKey(tx, {
      accountId: developerId,
      kind: 'developer',
      name: input.keyName ?? 'default',
    });
    return { developerId, apiKey };
  });
}

export interface AccountSummary {
  id: string;
  kind: AccountKind;
  name: string;
  tier: Tier | null;
  status: string;
  webhookUrl: string | null;
  depositIndex: number | null;
  createdAt: Date;
  balance: bigint;
  reserved: bigint;
  available: bigint;
  spent: bigint;
  charges: number;
}

export async function getAccountSummary(prisma: PrismaClient, accountId: string): Promise<AccountSummary> {
  const account = await prisma.account.findUnique({ where: { id: accountId }, include: { balance: true } });
  if (!account) throw new AccountNotFoundError(accountId);
  const totals = await ledgerTotals(prisma, accountId);
  const balance = account.balance?.balance ?? 0n;
  const reserved = account.balance?.reserved ?? 0n;
  return {
    id: account.id,
    kind: account.kind,
    name: account.name,
    tier: account.tier,
    status: account.status,
    webhookUrl: account.webhookUrl,
    depositIndex: account.depositIndex,
    createdAt: account.createdAt,
    balance,
    reserved,
    available: balance - reserved,
    spent: totals.spent,
    charges: totals.charges,
  };
}

/** A developer's balance and the key it called with, as stored now (the authenticator's copy may be seconds old). */
export async function getDeveloperBalance(prisma: PrismaClient, input: { accountId: string; keyId: string }) {
  const [summary, apiKey] = await Promise.all([
    getAccountSummary(prisma, input.accountId),
    prisma.apiKey.findUniqueOrThrow({ where: { id: input.keyId } }),
  ]);
  return { summary, apiKey };
}

export async function recentDeposits(prisma: PrismaClient, accountId: string, take = 10) {
  return prisma.deposit.findMany({ where: { accountId }, orderBy: { createdAt: 'desc' }, take });
}

/** The account's webhook: where its events go, and which (empty: every event). */
export interface AccountWebhook {
  webhookUrl: string | null;
  webhookEvents: string[];
}

export async function accountWebhook(prisma: PrismaClient, accountId: string): Promise<AccountWebhook> {
  return prisma.account.findUniqueOrThrow({
    where: { id: accountId },
    select: { webhookUrl: true, webhookEvents: true },
  });
}

/** Sets or removes the account's webhook (any kind of account); its signing secret is kept, made if it had none. */
export async function setAccountWebhook(
  prisma: PrismaClient,
  accountId: string,
  webhook: AccountWebhook,
): Promise<AccountWebhook> {
  const { webhookUrl, webhookEvents } = webhook;
  await prisma.account.update({ where: { id: accountId }, data: { webhookUrl, webhookEvents } });
  await webhookSecretOf(prisma, accountId);
  return { webhookUrl, webhookEvents };
}

/** Sets or replaces an agent's webhook and rotates its signing secret. */
export async function setAgentWebhook(
  prisma: PrismaClient,
  accountId: string,
  webhookUrl: string,
): Promise<{ webhookUrl: string; webhookSecret: string }> {
  const webhookSecret = newWebhookSecret();
  await prisma.account.update({ where: { id: accountId }, data: { webhookUrl, webhookSecret } });
  return { webhookUrl, webhookSecret };
}
