// genctl payments: x402 payments for operators — who paid for which task, on which chain, and where each stands.
import type { PrismaClient } from '../db/prisma.ts';
import type { X402Payment } from '../generated/prisma/client.ts';
import { formatUsd } from '../domain/money.ts';
import { CommandError, iso, limitOf, type Output } from './commands.ts';

const paymentStatuses = ['authorized', 'settling', 'settled', 'failed', 'abandoned'] as const;

function paymentJson(payment: X402Payment) {
  return {
    task_id: payment.taskId,
    account_id: payment.accountId,
    payer: payment.payer,
    scheme: payment.scheme,
    network: payment.network,
    amount_usd: formatUsd(payment.amount),
    amount_settled_usd: payment.amountSettled === null ? null : formatUsd(payment.amountSettled),
    status: payment.status,
    transaction: payment.transaction,
    error: payment.error,
    created_at: iso(payment.createdAt),
    settled_at: iso(payment.settledAt),
  };
}

const paymentLine = (payment: X402Payment) =>
  [
    payment.taskId,
    payment.payer,
    payment.network,
    `${formatUsd(payment.amountSettled ?? payment.amount)} USD`,
    payment.status.padEnd(10),
    iso(payment.createdAt),
    payment.transaction ?? '',
    payment.error ?? '',
  ]
    .filter(Boolean)
    .join('  ');

/** The newest x402 payments first, optionally of one payer address or in one status. */
export async function listPaymentsCommand(
  prisma: PrismaClient,
  options: { payer?: string; status?: string; limit?: string },
): Promise<Output> {
  if (options.status !== undefined && !(paymentStatuses as readonly string[]).includes(options.status))
    throw new CommandError(`--status must be one of ${paymentStatuses.join(', ')}`, 2);
  const payments = await prisma.x402Payment.findMany({
    where: { payer: options.payer?.toLowerCase(), status: options.status },
    orderBy: [{ createdAt: 'desc' }, { taskId: 'desc' }],
    take: limitOf(options.limit),
  });
  return {
    json: { payments: payments.map(paymentJson) },
    text: payments.length === 0 ? 'No x402 payments.' : payments.map(paymentLine).join('\n'),
  };
}
