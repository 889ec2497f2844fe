// What a task moved, as signed receipts: an x402 task's settled payment (and, for `upto`, what of its maximum was never
// taken: no transfer, so no transaction), or a balance task's charge and what its reservation gave back (a failed or
// cancelled task: all of it). Each is signed when asked for, from the rows that record it, so the same facts always
// make the same payload.
import { type JWSSigner, OFFER_RECEIPT } from '@x402/extensions/offer-receipt';
import type { PrismaClient } from '../../db/prisma.ts';
import { type ReceiptFacts, type ReceiptKind, signReceipt } from './receipts.ts';

/** The ledger is the transaction of a balance's movement: `balance` stands where a chain's id would. */
const balanceNetwork = 'balance';

interface TaskRef {
  id: string;
  accountId: string;
}

async function x402Facts(prisma: PrismaClient, taskId: string, resourceUrl: string): Promise<ReceiptFacts[] | null> {
  const payment = await prisma.x402Payment.findUnique({ where: { taskId } });
  if (!payment) return null;
  if (payment.status !== 'settled' || payment.amountSettled === null || !payment.settledAt) return [];
  const { payer, network, settledAt: issuedAt } = payment;
  const facts = (kind: ReceiptKind, amount: bigint, transaction?: string) => ({
    kind,
    id: taskId,
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

async function balanceFacts(prisma: PrismaClient, task: TaskRef, resourceUrl: string): Promise<ReceiptFacts[]> {
  const entries = await prisma.ledgerEntry.findMany({
    where: { taskId: task.id, accountId: task.accountId, kind: { in: ['charge', 'release'] } },
    orderBy: { id: 'asc' },
  });
  return entries.flatMap((entry) => {
    const amount = entry.kind === 'charge' ? -entry.amount : -entry.reservedDelta;
    if (amount <= 0n) return [];
    const kind: ReceiptKind = entry.kind === 'charge' ? 'charge' : 'refund';
    const transaction = `ledger:${entry.id}`;
    return [
      {
        kind,
        id: task.id,
        resourceUrl,
        payer: task.accountId,
        network: balanceNetwork,
        transaction,
        amount,
        issuedAt: entry.createdAt,
      },
    ];
  });
}

/** The task's receipts, oldest first: none while nothing has moved. */
export async function taskReceipts(prisma: PrismaClient, signer: JWSSigner, task: TaskRef, resourceUrl: string) {
  const facts = (await x402Facts(prisma, task.id, resourceUrl)) ?? (await balanceFacts(prisma, task, resourceUrl));
  return Promise.all(facts.map(async (fact) => ({ ...fact, receipt: await signReceipt(signer, fact) })));
}

/** A settled x402 task's `payment` receipt, as the offer-receipt extension puts it in PAYMENT-RESPONSE; else none. */
export async function settlementReceiptExtension(
  prisma: PrismaClient,
  signer: JWSSigner,
  taskId: string,
  resourceUrl: string,
): Promise<Record<string, unknown> | undefined> {
  const payment = (await x402Facts(prisma, taskId, resourceUrl))?.find((fact) => fact.kind === 'payment');
  return payment && { [OFFER_RECEIPT]: { info: { receipt: await signReceipt(signer, payment) } } };
}
