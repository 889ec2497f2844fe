// Settling a task's x402 payment once its outputs are stored: at most one transfer per payment, whatever crashes.
// A retry after a crash meets the spent nonce and finds our own transfer on chain instead of paying twice.
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import type { Hex } from 'viem';
import { enabledChains } from '../chain/settings.ts';
import type { Config } from '../config.ts';
import type { PrismaClient } from '../db/prisma.ts';
import type { X402Payment } from '../generated/prisma/client.ts';
import type { PaymentFacilitator } from '../x402/facilitator.ts';
import { networkOf } from '../x402/requirements.ts';
import { findSettlementTransaction, findUptoSettlement } from '../x402/settlement-lookup.ts';

export interface SettlementDeps {
  prisma: PrismaClient;
  config: Config;
  facilitator: () => PaymentFacilitator;
}

/** The payer's doing, and final: the authorization no longer pays (funds moved, window passed, cancelled). */
export class PaymentNotSettledError extends Error {
  override name = 'PaymentNotSettledError';
  constructor(readonly reason: string) {
    super(`${explanationOf(reason)} (${reason})`);
  }
}

/** What a final refusal means, in words a payer understands; the reason code follows in parentheses. */
function explanationOf(reason: string): string {
  if (/insufficient_balance|transaction_failed|simulation_failed/.test(reason))
    return "the payer's funds no longer cover it";
  if (/allowance/.test(reason)) return "the payer's Permit2 allowance no longer covers it";
  if (/valid_before|valid_after|deadline|not_yet_valid/.test(reason))
    return 'the authorization is outside its validity window';
  if (reason === spentElsewhere) return 'the authorization was used or cancelled by someone else';
  return 'the facilitator refused it';
}

const spentElsewhere = 'authorization_spent_elsewhere';

/**
 * A refusal that will not change on retry. Anything else (`settlement_pending`, a failed transaction, an RPC
 * error) is retried: the next attempt verifies again and either settles or meets a final reason.
 */
const isFinal = (reason: string) =>
  /^(invalid|permit2|upto|eip2612|erc20)_/.test(reason) && reason !== 'invalid_transaction_state';
const isSpentNonce = (reason: string) => reason.endsWith('nonce_already_used');

interface Settlement {
  transaction: string;
  amount: bigint;
}

async function recordSettled(prisma: PrismaClient, payment: X402Payment, settled: Settlement): Promise<X402Payment> {
  await prisma.x402Payment.updateMany({
    where: { taskId: payment.taskId, status: 'authorized' },
    data: { status: 'settled', transaction: settled.transaction, amountSettled: settled.amount, settledAt: new Date() },
  });
  return prisma.x402Payment.findUniqueOrThrow({ where: { taskId: payment.taskId } });
}

/** Our own earlier transfer for this authorization, found on chain when a retry finds its nonce spent. */
async function earlierSettlement(config: Config, payment: X402Payment): Promise<Settlement | null> {
  const chain = enabledChains(config).find((settings) => networkOf(settings) === payment.network);
  if (!chain) return null;
  const [payer, payTo] = [payment.payer as Hex, payment.payTo as Hex];
  if (payment.scheme === 'upto') return findUptoSettlement(chain, { payer, payTo, nonce: BigInt(payment.nonce) });
  const spent = { payer, payTo, nonce: payment.nonce as Hex, amount: payment.amount };
  const transaction = await findSettlementTransaction(chain, spent);
  return transaction && { transaction, amount: payment.amount };
}

/** `exact` moves the authorized amount; `upto` what the task used, never more than authorized. */
const amountToSettle = (payment: X402Payment, usedMicros: bigint) =>
  payment.scheme === 'upto' && usedMicros < payment.amount ? usedMicros : payment.amount;

/**
 * Moves the task's payment on chain (once) and records it `settled`; throws PaymentNotSettledError when the payment
 * no longer pays, and anything else when the outcome is unknown (retry). `usedMicros`: what the task used.
 */
export async function settleTaskPayment(
  deps: SettlementDeps,
  input: { taskId: string; usedMicros: bigint },
): Promise<X402Payment> {
  const { taskId } = input;
  const payment = await deps.prisma.x402Payment.findUniqueOrThrow({ where: { taskId } });
  if (payment.status === 'settled') return payment;
  if (payment.status !== 'authorized') throw new PaymentNotSettledError(payment.error ?? payment.status);
  const amount = amountToSettle(payment, input.usedMicros);
  const requirement = { ...(payment.requirement as unknown as PaymentRequirements), amount: amount.toString() };
  const response = await deps.facilitator().settle(payment.payload as unknown as PaymentPayload, requirement);
  if (response.success) return recordSettled(deps.prisma, payment, { transaction: response.transaction, amount });
  const reason = response.errorReason ?? 'unknown_settlement_error';
  // Permit2 gives no reason of its own for a spent nonce: any refusal of an `upto` payment first looks on chain.
  if (isSpentNonce(reason) || payment.scheme === 'upto') {
    const earlier = await earlierSettlement(deps.config, payment);
    if (earlier) return recordSettled(deps.prisma, payment, earlier);
  }
  // A nonce spent, but not by a transfer to us, is final: the payer cancelled the authorization or used it elsewhere.
  if (!isSpentNonce(reason) && !isFinal(reason))
    throw new Error(`x402 settlement did not complete (${reason}): ${response.errorMessage ?? 'no detail'}`);
  const final = isSpentNonce(reason) ? spentElsewhere : reason;
  await deps.prisma.x402Payment.updateMany({
    where: { taskId, status: 'authorized' },
    data: { status: 'failed', error: final },
  });
  throw new PaymentNotSettledError(final);
}
