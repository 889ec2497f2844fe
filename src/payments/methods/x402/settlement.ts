// Settling a task's x402 payment once its outputs are stored: at most one transfer per payment, whatever crashes.
// After any failure the chain decides, not the facilitator's reason string: a spent nonce is our earlier transfer
// (settled) or someone else's use (final); an unspent one is final only when the payer can no longer pay.
import type { Address } from 'viem';
import { type ChainSettings, enabledChains } from '../../../chain/settings.ts';
import type { ChainsConfig, Config } from '../../../config/config.ts';
import type { PrismaClient } from '../../../db/prisma.ts';
import type { X402Payment } from '../../../generated/prisma/client.ts';
import type { AnyRequirements, PaymentFacilitator } from './facilitator.ts';
import type { AnyPaymentPayload } from './payment-header.ts';
import { networkOf } from './requirements.ts';
import {
  type Authorization,
  findSettlement,
  type FoundSettlement,
  isAuthorizationSpent,
  payerCovers,
} from './settlement-lookup.ts';
import { creditSettledPayment } from './held-payment.ts';

export interface SettlementDeps {
  prisma: PrismaClient;
  config: Pick<Config, 'chains'>;
  facilitator: () => PaymentFacilitator;
}

/** Final: the payment will never move (the payer's funds gone, its window passed, its nonce used elsewhere). */
export class PaymentNotSettledError extends Error {
  override name = 'PaymentNotSettledError';
  constructor(readonly reason: string) {
    super(`${explanationOf(reason)} (${reason})`);
  }
}

const finalReasons = {
  insufficient_funds: "the payer's funds (or Permit2 allowance) no longer cover it",
  authorization_expired: 'the authorization expired before it could be settled',
  authorization_spent_elsewhere: 'the authorization was used or cancelled by someone else',
} as const;

/** Refusals about the payment itself, which no retry changes (a scheme, network or payload we cannot settle). */
const refusedPayment = /^(unsupported_|invalid_network|invalid_.*_(recipient|value|scheme|network)_mismatch)/;

function explanationOf(reason: string): string {
  return finalReasons[reason as keyof typeof finalReasons] ?? 'the facilitator refused it';
}

/** What settling needs of a held authorization, whatever it pays for (a task, a top-up). */
export type HeldAuthorization = Pick<
  X402Payment,
  'scheme' | 'payer' | 'payTo' | 'nonce' | 'network' | 'validBefore' | 'payload' | 'requirement'
>;

const authorizationOf = (payment: HeldAuthorization): Authorization => ({
  scheme: payment.scheme,
  payer: payment.payer as Address,
  payTo: payment.payTo as Address,
  nonce: payment.nonce,
});

function chainOf(config: ChainsConfig, payment: HeldAuthorization): ChainSettings {
  const chain = enabledChains(config).find((settings) => networkOf(settings) === payment.network);
  if (!chain) throw new PaymentNotSettledError(`network_not_enabled:${payment.network}`);
  return chain;
}

/**
 * Records the transfer that settled the payment, whatever the payment's recorded state (the chain is the truth). If
 * the task had already failed, the payer's money is credited to its wallet account: owed back, and visible.
 */
async function recordSettled(prisma: PrismaClient, payment: X402Payment, settled: FoundSettlement) {
  return prisma.$transaction(async (tx) => {
    await tx.x402Payment.updateMany({
      where: { taskId: payment.taskId, status: { not: 'settled' } },
      data: {
        status: 'settled',
        transaction: settled.transaction,
        amountSettled: settled.amount,
        settledAt: new Date(),
        error: null,
      },
    });
    const task = await tx.task.findUniqueOrThrow({ where: { id: payment.taskId } });
    if (task.status === 'failed' && settled.amount > 0n) {
      const memo = `${settled.transaction} settled after the task failed: owed back to the payer`;
      await creditSettledPayment(tx, payment, settled.amount, memo);
    }
    return tx.x402Payment.findUniqueOrThrow({ where: { taskId: payment.taskId } });
  });
}

/** `exact` moves the authorized amount; `upto` what the task used, never more than authorized. */
const amountToSettle = (payment: X402Payment, usedMicros: bigint) =>
  payment.scheme === 'upto' && usedMicros < payment.amount ? usedMicros : payment.amount;

/** The offer as settled: v2 settles `amount` (upto: what was used); v1 only `exact`, its `maxAmountRequired`. */
const amountSettled = (requirement: AnyRequirements, amount: bigint): AnyRequirements =>
  'maxAmountRequired' in requirement ? requirement : { ...requirement, amount: amount.toString() };

/** Whether a task's payment or a top-up records the transfer already. */
async function recordedElsewhere(prisma: PrismaClient, transaction: string): Promise<boolean> {
  const [payments, topUps] = await Promise.all([
    prisma.x402Payment.count({ where: { transaction } }),
    prisma.x402TopUp.count({ where: { transaction } }),
  ]);
  return payments + topUps > 0;
}

/** After a settle that did not succeed: settled after all, final, or worth another attempt (a throw). */
async function afterFailedSettle<T>(
  deps: SettlementDeps,
  payment: HeldAuthorization,
  amount: bigint,
  reason: string,
  record: (settled: FoundSettlement) => Promise<T>,
): Promise<T> {
  const chain = chainOf(deps.config.chains, payment);
  const authorization = authorizationOf(payment);
  if (await isAuthorizationSpent(chain, authorization)) {
    const earlier = await findSettlement(chain, authorization);
    // A transfer another row recorded (the authorization sent for a task and a top-up alike) is not this one's.
    if (earlier && (await recordedElsewhere(deps.prisma, earlier.transaction)))
      throw new PaymentNotSettledError('authorization_spent_elsewhere');
    if (earlier) return record(earlier);
    // Spent, but not (yet found to be) by us: a retry looks again; once expired it is someone else's use.
    if (payment.validBefore.getTime() < Date.now()) throw new PaymentNotSettledError('authorization_spent_elsewhere');
    throw new Error(`the authorization's nonce is spent but no transfer of ours was found yet (${reason})`);
  }
  if (!(await payerCovers(chain, authorization, amount))) throw new PaymentNotSettledError('insufficient_funds');
  if (payment.validBefore.getTime() <= Date.now()) throw new PaymentNotSettledError('authorization_expired');
  if (refusedPayment.test(reason)) throw new PaymentNotSettledError(reason);
  throw new Error(`x402 settlement did not complete (${reason}); the payment has not moved`);
}

/**
 * Moves a held authorization on chain for `amount` and records the transfer with `record`, once: a transfer already
 * made (a retry after a crash) is found on chain and recorded the same way. Throws PaymentNotSettledError when it
 * never will move, and anything else when it may yet (retry).
 */
export async function settleHeld<T>(
  deps: SettlementDeps,
  payment: HeldAuthorization,
  amount: bigint,
  record: (settled: FoundSettlement) => Promise<T>,
): Promise<T> {
  const requirement = amountSettled(payment.requirement as unknown as AnyRequirements, amount);
  const response = await deps.facilitator().settle(payment.payload as unknown as AnyPaymentPayload, requirement);
  if (response.success) return record({ transaction: response.transaction as Address, amount });
  return afterFailedSettle(deps, payment, amount, response.errorReason ?? 'unknown_settlement_error', record);
}

/**
 * Moves the task's payment on chain (once) and records it `settled`; throws PaymentNotSettledError when it never
 * will move, and anything else when it may yet (retry). `usedMicros`: what the task used.
 */
export async function settleTaskPayment(
  deps: SettlementDeps,
  input: { taskId: string; usedMicros: bigint },
): Promise<X402Payment> {
  const { taskId } = input;
  const payment = await deps.prisma.x402Payment.findUniqueOrThrow({ where: { taskId } });
  if (payment.status === 'settled') return payment;
  if (payment.status === 'failed' || payment.status === 'abandoned')
    throw new PaymentNotSettledError(payment.error ?? payment.status);
  // From here the outcome may be unknown until the chain says: a failed task never abandons a `settling` payment.
  await deps.prisma.x402Payment.updateMany({ where: { taskId, status: 'authorized' }, data: { status: 'settling' } });
  const amount = amountToSettle(payment, input.usedMicros);
  try {
    return await settleHeld(deps, payment, amount, (settled) => recordSettled(deps.prisma, payment, settled));
  } catch (error) {
    if (!(error instanceof PaymentNotSettledError)) throw error;
    await deps.prisma.x402Payment.updateMany({
      where: { taskId, status: { in: ['authorized', 'settling'] } },
      data: { status: 'failed', error: error.reason },
    });
    throw error;
  }
}
