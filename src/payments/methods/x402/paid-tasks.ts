// Tasks paid with x402: admitted against a payment the api verified, without a reservation (the payer's wallet
// account holds nothing until its payment settles). One task per payment, and a cap on each payer's tasks in flight.
import { decideAdmission } from '../../../generations/admission-fence.ts';
import { derivedId } from '../../../domain/ids.ts';
import { newAccessToken } from './task-tokens.ts';
import type { PrismaClient } from '../../../db/prisma.ts';
import { Prisma, type X402Payment } from '../../../generated/prisma/client.ts';
import { type AdmitTaskInput, insertTask, type TaskRow } from '../../../generations/tasks.ts';
import { authorizationDeadline, type X402Authorization } from './authorization.ts';
import { claimAuthorization } from './authorization-claims.ts';

export type { X402Authorization } from './authorization.ts';

export class PayerBusyError extends Error {
  override name = 'PayerBusyError';
  constructor(readonly limit: number) {
    super(`this payer already has ${limit} tasks in flight`);
  }
}

/** The payment's authorization or payment id pays another task already: a twin raced it, so it is never used twice. */
export class PaymentTakenError extends Error {
  override name = 'PaymentTakenError';
  constructor(readonly taskId: string) {
    super(`this payment pays ${taskId.startsWith('top_') ? 'top-up' : 'task'} ${taskId} already`);
  }
}

/** The wallet account of a payer address: the same address always names the same account. */
export const walletAccountId = (payer: string) => derivedId('wal', payer.toLowerCase());

/** Creates the payer's wallet account (and its zero balance) on first payment. */
async function ensureWalletAccount(tx: Prisma.TransactionClient, accountId: string, payer: string): Promise<void> {
  await tx.account.upsert({
    where: { id: accountId },
    create: { id: accountId, kind: 'wallet', name: payer, clientAddress: payer, balance: { create: {} } },
    update: {},
  });
}

/**
 * Writes the task row `queued` and its payment `authorized`; a repeat (the same payment) finds both. Admissions of
 * one payer queue on a lock so the in-flight cap holds under concurrency. A payment whose authorization or payment id
 * another task holds (a twin under another id raced it) is refused: its unique keys say so, and it moves only once.
 */
export async function admitPaidTask(
  prisma: PrismaClient,
  input: AdmitTaskInput & { payment: X402Authorization },
): Promise<TaskRow> {
  try {
    return await admitOnce(prisma, input);
  } catch (error) {
    if (!(error instanceof Prisma.PrismaClientKnownRequestError) || error.code !== 'P2002') throw error;
    const taken = await paymentTaking(prisma, input.payment);
    if (taken && taken.taskId !== input.taskId) throw new PaymentTakenError(taken.taskId);
    throw error;
  }
}

/** The row of another task this payment (its authorization, or its payment id) is written for already, if any. */
const paymentTaking = (prisma: PrismaClient, { network, asset, payer, nonce, paymentId }: X402Authorization) =>
  prisma.x402Payment.findFirst({
    where: { OR: [{ network, asset, payer, nonce }, ...(paymentId ? [{ payer, paymentId }] : [])] },
    select: { taskId: true },
  });

async function admitOnce(prisma: PrismaClient, input: AdmitTaskInput & { payment: X402Authorization }) {
  const attempt = { taskId: input.taskId, runId: input.runId, refusals: [PayerBusyError] };
  return decideAdmission(prisma, attempt, async (tx) => {
    const { payment, accountId } = input;
    await ensureWalletAccount(tx, accountId, payment.payer);
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`x402-payer:${accountId}`}, 0))`;
    const inFlight = await tx.task.count({ where: { accountId, status: { in: ['queued', 'processing'] } } });
    if (inFlight >= payment.maxTasksInFlight) throw new PayerBusyError(payment.maxTasksInFlight);
    const topUp = await claimAuthorization(tx, payment, 'task');
    if (topUp) throw new PaymentTakenError(topUp);
    const task = await insertTask(tx, input);
    const paid = await tx.x402Payment.create({
      data: {
        taskId: input.taskId,
        accountId,
        scheme: payment.scheme,
        network: payment.network,
        asset: payment.asset,
        payer: payment.payer,
        payTo: payment.payTo,
        nonce: payment.nonce,
        amount: BigInt(payment.amount),
        validBefore: authorizationDeadline(payment.validBefore),
        payload: payment.payload,
        requirement: payment.requirement,
        accessToken: newAccessToken(),
        paymentId: payment.paymentId ?? null,
      },
    });
    return { ...task, payment: paid };
  });
}

/** A paid task with its payment's row, found by one of the row's unique keys (its authorization, its payment id). */
export async function findPaidTask(prisma: PrismaClient, where: Prisma.X402PaymentWhereUniqueInput) {
  const row = await prisma.x402Payment.findUnique({ where, include: { task: true } });
  if (!row) return null;
  const { task, ...payment } = row;
  return { ...task, payment };
}

/** The authorization a task was admitted with, as its row keeps it: what a retry of the task carries again. */
export const storedAuthorization = (payment: X402Payment, maxTasksInFlight: number): X402Authorization => ({
  scheme: payment.scheme,
  network: payment.network,
  asset: payment.asset,
  payer: payment.payer,
  payTo: payment.payTo,
  nonce: payment.nonce,
  amount: payment.amount.toString(),
  validBefore: Math.floor(payment.validBefore.getTime() / 1000).toString(),
  payload: payment.payload as object,
  requirement: payment.requirement as object,
  maxTasksInFlight,
  ...(payment.paymentId && { paymentId: payment.paymentId }),
});
