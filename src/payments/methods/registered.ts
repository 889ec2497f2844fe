// The ways to pay this server takes, in one list (as x402's packages register their schemes): a new method is a
// folder beside balance/ and x402/, and a line here. Admission finds a payer's method by the payer's `kind`.
import type { IncomingHttpHeaders } from 'node:http';
import type { Config } from '../../config/config.ts';
import { type BalanceMethodDeps, type BalancePayer, balanceMethod } from './balance/balance-method.ts';
import type { TaskPaymentView } from '../../generations/task-view.ts';
import type { HeldPaymentRules } from '../../generations/tasks.ts';
import type { PrismaClient } from '../../db/prisma.ts';
import type { PaidAdmission, PaidBy, PayerAdmission, PaymentMethod } from './payment-method.ts';
import { configuredFacilitator } from './x402/facilitator.ts';
import type { SettlementDeps } from './x402/settlement.ts';
import { type X402MethodDeps, type X402Payer, x402Method } from './x402/x402-method.ts';

export type { BalancePayer } from './balance/balance-method.ts';
export type { X402Payer } from './x402/x402-method.ts';
/** An x402 payer with as many tasks in flight as it may have: its admission is refused, nothing charged. */
export { PayerBusyError } from './x402/paid-tasks.ts';
/** A payment that pays another task already (a twin under another id raced it): this one is never admitted. */
export { PaymentTakenError } from './x402/paid-tasks.ts';
/** A payment that will never move: the task fails instead of retrying its settlement. */
export { PaymentNotSettledError } from './x402/settlement.ts';
/** Task access tokens: how a payer without an API key follows its task (x402's, kept with its payment's row). */
export { accessTokenOf, authenticateTaskToken, isTaskToken } from './x402/task-tokens.ts';

/** Whoever pays for a request, as its method recognises it. */
export type Payer = BalancePayer | X402Payer;

/** What the registered methods need to admit a payer (each takes the part it uses). */
export type PaymentMethodDeps = X402MethodDeps & BalanceMethodDeps;

/** What the registered methods need to settle a payment on the worker. */
export type PaymentSettlementDeps = SettlementDeps;

const registered = [balanceMethod, x402Method] as const;

/**
 * The services the methods share across requests, made once per process (the api's context, the worker's activities):
 * the facilitator's nonce manager must see every settlement it sends.
 */
export const paymentServices = (config: Pick<Config, 'x402' | 'chains'>) => ({
  facilitator: configuredFacilitator(config),
});

export type PaymentServices = ReturnType<typeof paymentServices>;

/** The payer's request as its method admits it. */
export function admissionOf(deps: PaymentMethodDeps, payer: Payer): PayerAdmission {
  const method = registered.find((candidate) => candidate.kind === payer.kind);
  if (!method) throw new Error(`no payment method takes a payer of kind ${payer.kind}`);
  return (method as PaymentMethod<Payer, PaymentMethodDeps>).admission(deps, payer);
}

/** The method that pays a request carrying no API key, where one is registered. */
const keylessMethod = registered.find((method) => 'keyless' in method) as
  PaymentMethod<Payer, PaymentMethodDeps> | undefined;

/** Whether this server takes a payment from a caller without an API key (and has what that payment needs). */
export const keylessPaymentOffered = (config: Config): boolean => keylessMethod?.keyless?.offered(config) ?? false;

/** The payer of a request without an API key, as the method that takes keyless payments recognises it. */
export function keylessPayer(headers: IncomingHttpHeaders, resourceUrl: string): Payer {
  if (!keylessMethod?.keyless) throw new Error('no payment method takes a request without an API key');
  return keylessMethod.keyless.payer(headers, resourceUrl);
}

const methodThatPaid = (paidBy: PaidBy) => {
  const method = registered.find((candidate) => candidate.paid(paidBy));
  if (!method) throw new Error('no payment method paid this task');
  return method as PaymentMethod<Payer, PaymentMethodDeps>;
};

/** The method a task's workflow input was paid with, by its `kind` (the task's search attribute). */
export const paymentKindOf = (paidBy: PaidBy): Payer['kind'] => methodThatPaid(paidBy).kind;

/** Worker side: the task row written `queued` by the method its input was paid with (see PaymentMethod.admit). */
export const admitTaskPaidBy = (prisma: PrismaClient, input: PaidAdmission) =>
  methodThatPaid(input).admit(prisma, input);

/** How the task's summary says it was paid. */
export const paymentDescription = (paidBy: PaidBy): string => methodThatPaid(paidBy).describe(paidBy);

/** What the start-up banner says of the ways to pay. */
export const paymentBannerLines = (config: Config): string[] =>
  registered.flatMap((method) => method.bannerLines?.(config) ?? []);

/**
 * What ending a task does with a payment held beside it (its row is the task's `payment`): x402 is the one method
 * that holds one, so the rules are its own.
 */
export const heldPaymentRules: HeldPaymentRules = x402Method.held;

/**
 * Settles the payment a task was admitted with, once it delivered. The workflow asks only for a task whose input
 * carries a payment, and x402 is the one method that authorizes at admission and moves the money after.
 */
export const settleTaskPayment = (deps: PaymentSettlementDeps, task: { taskId: string; usedMicros: bigint }) =>
  x402Method.settle(deps, task);

/** The receipt headers of a task's payment, where its method answers with one (x402 once settled). */
export const paymentReceiptHeaders = (
  payment: TaskPaymentView,
  extensions?: Record<string, unknown>,
): Record<string, string> | undefined =>
  registered.reduce<Record<string, string> | undefined>(
    (found, method) => found ?? method.receiptHeaders?.(payment, extensions),
    undefined,
  );

/** MCP: the HTTP headers a tool call's `_meta` carries its payment as, by whichever method's transport it follows. */
export const mcpPaymentHeaders = (meta: Record<string, unknown> | undefined): Record<string, string> =>
  Object.assign({}, ...registered.map((method) => method.mcpPaymentHeaders?.(meta) ?? {})) as Record<string, string>;

/** MCP: the tool result's `_meta` for a payment receipt the answer's headers carry, where one does. */
export const mcpReceiptMeta = (headers: Record<string, string>): Record<string, unknown> | undefined =>
  registered.reduce<Record<string, unknown> | undefined>(
    (found, method) => found ?? method.mcpReceiptMeta?.(headers),
    undefined,
  );
