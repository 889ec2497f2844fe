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
import { findSettlementTransaction } from '../x402/settlement-lookup.ts';

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
  if (/insufficient_balance|transaction_failed/.test(reason)) return "the payer's funds no longer cover it";
  if (/valid_before|valid_after/.test(reason)) return 'the authorization is outside its validity window';
  if (reason === spentElsewhere) return 'the authorization was used or cancelled by someone else';
  return 'the facilitator refused it';
}

const spentElsewhere = 'authorization_spent_elsewhere';

/**
 * A refusal that will not change on retry. Anything else (`settlement_pending`, a failed transaction, an RPC
 * error) is retried: the next attempt verifies again and either settles or meets a final reason.
 */
const isFinal = (reason: string) => reason.startsWith('invalid_') && reason !== 'invalid_transaction_state';
const isSpentNonce = (reason: string) => reason.endsWith('nonce_already_used');

async function recordSettled(prisma: PrismaClient, payment: X402Payment, transaction: string): Promise<X402Payment> {
  await prisma.x402Payment.updateMany({
    where: { taskId: payment.taskId, status: 'authorized' },
    data: { status: 'settled', transaction, amountSettled: payment.amount, settledAt: new Date() },
  });
  return prisma.x402Payment.findUniqueOrThrow({ where: { taskId: payment.taskId } });
}

/** Our own earlier transfer for this authorization, when a retry finds its nonce spent. */
async function earlierSettlement(config: Config, payment: X402Payment): Promise<string | null> {
  const chain = enabledChains(config).find((settings) => networkOf(settings) === payment.network);
  if (!chain) return null;
  return findSettlementTransaction(chain, {
    payer: payment.payer as Hex,
    nonce: payment.nonce as Hex,
    payTo: payment.payTo as Hex,
    amount: payment.amount,
  });
}

/**
 * Moves the task's payment on chain (once) and records it `settled`; throws PaymentNotSettledError when the payment
 * no longer pays, and anything else when the outcome is unknown (retry).
 */
export async function settleTaskPayment(deps: SettlementDeps, taskId: string): Promise<X402Payment> {
  const payment = await deps.prisma.x402Payment.findUniqueOrThrow({ where: { taskId } });
  if (payment.status === 'settled') return payment;
  if (payment.status !== 'authorized') throw new PaymentNotSettledError(payment.error ?? payment.status);
  const response = await deps
    .facilitator()
    .settle(payment.payload as unknown as PaymentPayload, payment.requirement as unknown as PaymentRequirements);
  if (response.success) return recordSettled(deps.prisma, payment, response.transaction);
  const reason = response.errorReason ?? 'unknown_settlement_error';
  if (isSpentNonce(reason)) {
    const transaction = await earlierSettlement(deps.config, payment);
    if (transaction) return recordSettled(deps.prisma, payment, transaction);
  } else if (!isFinal(reason)) {
    throw new Error(`x402 settlement did not complete (${reason}): ${response.errorMessage ?? 'no detail'}`);
  }
  const final = isSpentNonce(reason) ? spentElsewhere : reason;
  await deps.prisma.x402Payment.updateMany({
    where: { taskId, status: 'authorized' },
    data: { status: 'failed', error: final },
  });
  throw new PaymentNotSettledError(final);
}
