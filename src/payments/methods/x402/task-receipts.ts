// What an x402 task's payment moved, as receipts: its settled `payment` and, for `upto`, what of its maximum was never
// taken (no transfer, so no transaction). A task with no x402 payment is not this method's (null).
import { OFFER_RECEIPT } from '@x402/extensions/offer-receipt';
import type { PrismaClient } from '../../../db/prisma.ts';
import { type JWSSigner, type ReceiptFacts, type ReceiptKind, signReceipt } from '../../receipts/receipts.ts';
import type { TaskPaymentView } from '../../../generations/task-view.ts';
import { paymentResponseHeaders } from './requirements.ts';

export async function x402ReceiptFacts(
  prisma: PrismaClient,
  task: { id: string },
  resourceUrl: string,
): Promise<ReceiptFacts[] | null> {
  const payment = await prisma.x402Payment.findUnique({ where: { taskId: task.id } });
  if (!payment) return null;
  if (payment.status !== 'settled' || payment.amountSettled === null || !payment.settledAt) return [];
  const { payer, network, settledAt: issuedAt } = payment;
  const facts = (kind: ReceiptKind, amount: bigint, transaction?: string) => ({
    kind,
    id: task.id,
    resourceUrl,
    payer,
    network,
    ...(transaction && { transaction }),
    amount,
    issuedAt,
  });
  // `upto` moves only what was used, in one transfer (none for nothing): what it never took left no transaction.
  const unspent = payment.amount - payment.amountSettled;
  const moved = payment.amountSettled > 0n && payment.transaction;
  return [
    ...(moved ? [facts('payment', payment.amountSettled, payment.transaction!)] : []),
    ...(unspent > 0n ? [facts('refund', unspent)] : []),
  ];
}

/** A settled x402 task's PAYMENT-RESPONSE, its signed `payment` receipt in the offer-receipt extension; else none. */
export async function x402ReceiptHeaders(
  deps: { prisma: PrismaClient; signer: JWSSigner },
  task: { id: string; payment: TaskPaymentView },
  resourceUrl: string,
): Promise<Record<string, string> | undefined> {
  const { method, status, network, payer, transaction } = task.payment;
  if (method !== 'x402' || status !== 'settled' || !transaction) return undefined;
  const facts = await x402ReceiptFacts(deps.prisma, task, resourceUrl);
  const paid = facts?.find((fact) => fact.kind === 'payment');
  const extensions = paid && { [OFFER_RECEIPT]: { info: { receipt: await signReceipt(deps.signer, paid) } } };
  return paymentResponseHeaders({ network, payer, transaction, ...(extensions && { extensions }) });
}
