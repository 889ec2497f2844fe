// Every account signs its webhooks with one secret (accounts.webhook_secret). Agents get it when they set their
// webhook; developers and agents without one get it the first time it is needed (a delivery, or their own
// GET /account/webhook-secret), so a secret exists only for accounts that use webhooks.
import type { PrismaClient } from '../db/prisma.ts';
import { newWebhookSecret } from '../services/ids.ts';

/** The account's signing secret, created if it has none yet; null when the account does not exist. */
export async function webhookSecretOf(prisma: PrismaClient, accountId: string): Promise<string | null> {
  // Conditional: two first uses at once must not hand out two different secrets.
  await prisma.account.updateMany({
    where: { id: accountId, webhookSecret: null },
    data: { webhookSecret: newWebhookSecret() },
  });
  const account = await prisma.account.findUnique({ where: { id: accountId }, select: { webhookSecret: true } });
  return account?.webhookSecret ?? null;
}

/** The signing secret of an account that must exist (the authenticated caller's own). */
export async function requireWebhookSecret(prisma: PrismaClient, accountId: string): Promise<string> {
  const secret = await webhookSecretOf(prisma, accountId);
  if (!secret) throw new Error(`account ${accountId} vanished while authenticated`);
  return secret;
}
