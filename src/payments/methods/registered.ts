// The ways to pay this server takes, registered once (as x402's packages register their schemes): a new method is a
// folder beside balance/ and x402/, and a `register` here. The only file outside a method's folder that names one.
import type { Config } from '../../config/config.ts';
import { type BalanceMethodDeps, type BalancePayer, balanceMethod } from './balance/balance-method.ts';
import type { PayerAdmission } from './payment-method.ts';
import { PaymentRegistry } from './payment-registry.ts';
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
/** A payer of these methods, or of another a registry holds (its method reads it). */
export type AnyPayer = Payer | { kind: string };

/** What the registered methods need to admit a payer (each takes the part it uses). */
export type PaymentMethodDeps = X402MethodDeps & BalanceMethodDeps;

/** What the registered methods need to settle a payment on the worker. */
export type PaymentSettlementDeps = SettlementDeps;

/** The registry of this build's methods: a new method is one more `register`. */
export const paymentMethods = new PaymentRegistry<never>().register(balanceMethod).register(x402Method);

/** A registry as the app and the worker take it: of these methods, or of more (a test registers its own). */
export type PaymentMethods = PaymentRegistry<{ kind: string }>;

/**
 * The services the methods share across requests, made once per process (the api's context, the worker's activities):
 * the facilitator's nonce manager must see every settlement it sends.
 */
export const paymentServices = (config: Pick<Config, 'x402' | 'chains'>) => ({
  facilitator: configuredFacilitator(config),
});

export type PaymentServices = ReturnType<typeof paymentServices>;

/** The payer's request as its method admits it (by the app's registry where it has one). */
export const admissionOf = (deps: PaymentMethodDeps & { payments?: PaymentMethods }, payer: AnyPayer): PayerAdmission =>
  (deps.payments ?? paymentMethods).admission(deps, payer);

/** What the start-up banner says of the ways to pay. */
export const paymentBannerLines = (config: Config): string[] => paymentMethods.bannerLines(config);
