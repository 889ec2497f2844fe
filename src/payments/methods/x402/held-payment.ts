// An x402 payment is held beside its task (authorized at admission, settled on chain after delivery), not reserved
// from a balance: what completing and failing the task do with it (tasks.ts's HeldPaymentRules).
import type { Prisma, X402Payment } from '../../../generated/prisma/client.ts';
import type { HeldPaymentRules } from '../../../generations/tasks.ts';
import { credit, reserve } from '../../../ledger/ledger.ts';

/**
 * A settled x402 payment, credited to the payer's wallet account: one entry per task, whichever path records it
 * (completion charges it next; a failed task leaves it there, owed back).
 */
export function creditSettledPayment(
  tx: Prisma.TransactionClient,
  payment: Pick<X402Payment, 'taskId' | 'accountId'>,
  amount: bigint,
  memo?: string,
) {
  return credit(
    { tx },
    {
      accountId: payment.accountId,
      amount,
      kind: 'x402_payment',
      taskId: payment.taskId,
      idempotencyKey: `${payment.taskId}:x402`,
      memo,
    },
  );
}

export const x402HeldPayment: HeldPaymentRules = {
  /** What was settled on chain, first credited to the payer's wallet account and reserved for the task. */
  async charged(tx, task, payment) {
    if (payment.status !== 'settled' || payment.amountSettled === null)
      throw new Error(`the x402 payment of task ${task.id} is ${payment.status}, not settled`);
    const amount = payment.amountSettled;
    if (amount === 0n) return 0n; // an `upto` payment of nothing moves nothing
    await creditSettledPayment(tx, payment, amount, payment.transaction ?? undefined);
    await reserve({ tx }, { accountId: task.accountId, amount, taskId: task.id, idempotencyKey: `${task.id}:reserve` });
    return amount;
  },

  /**
   * Never settled now (`abandoned`). One whose transfer may be under way stays `settling` (the chain decides, and a
   * late transfer is recorded and owed back); one that did move is credited to the payer's wallet account, owed back,
   * so the ledger matches the chain.
   */
  async abandoned(tx, _task, payment) {
    if (payment.status === 'authorized')
      await tx.x402Payment.update({ where: { taskId: payment.taskId }, data: { status: 'abandoned' } });
    if (payment.status === 'settled' && payment.amountSettled !== null && payment.amountSettled > 0n)
      await creditSettledPayment(
        tx,
        payment,
        payment.amountSettled,
        `${payment.transaction ?? ''} settled, but the task failed: owed back to the payer`,
      );
  },
};
