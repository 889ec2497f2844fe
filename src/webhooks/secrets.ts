// One signing secret per account, made the first time it is needed (a delivery, a webhook set, or the account's
// own GET /account/webhook-secret), so only accounts that use webhooks have one.
import type { PrismaClient } from '../db/prisma.ts';
import { newWebhookSecret } from '../domain/ids.ts';

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
