// Task tokens: an x402 payer has no API key, so its task's 202 carries a token that reads that one task.
import type { PrismaClient } from '../../../db/prisma.ts';
import type { AuthResult } from '../../../accounts/api-keys.ts';
import { randomBase62 } from '../../../domain/ids.ts';

const tokenShape = /^tt_[0-9A-Za-z]{43}$/;

/** `tt_` and 32 random bytes in base62. */
export const newAccessToken = () => `tt_${randomBase62(32)}`;

export const isTaskToken = (token: string) => token.startsWith('tt_');

/** The payer's wallet account, scoped to the token's task; unknown for anything else. */
export async function authenticateTaskToken(prisma: PrismaClient, token: string): Promise<AuthResult> {
  if (!tokenShape.test(token)) return { ok: false, failure: 'malformed' };
  const payment = await prisma.x402Payment.findUnique({ where: { accessToken: token }, include: { account: true } });
  if (!payment) return { ok: false, failure: 'unknown' };
  const { id, kind, name, tier, status } = payment.account;
  return { ok: true, principal: { account: { id, kind, name, tier, status }, apiKey: null, task: payment.taskId } };
}

/** The access token of an x402-paid task (made with its payment row), or null for a task not paid that way. */
export async function accessTokenOf(prisma: PrismaClient, taskId: string): Promise<string | null> {
  const payment = await prisma.x402Payment.findUnique({ where: { taskId }, select: { accessToken: true } });
  return payment?.accessToken ?? null;
}
