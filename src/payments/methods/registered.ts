// The ways to pay this server takes, in one list (as x402's packages register their schemes): a new method is a
// folder beside balance/ and x402/, and a line here. Admission finds a payer's method by the payer's `kind`.
import { type BalancePayer, balanceMethod } from './balance/balance-method.ts';
import type { PayerAdmission, PaymentMethod } from './payment-method.ts';
import { type X402MethodDeps, type X402Payer, x402Method } from './x402/x402-method.ts';

export type { BalancePayer } from './balance/balance-method.ts';
export type { X402Payer } from './x402/x402-method.ts';

/** Whoever pays for a request, as its method recognises it. */
export type Payer = BalancePayer | X402Payer;

/** What the registered methods need to admit a payer (each takes the part it uses). */
export type PaymentMethodDeps = X402MethodDeps;

const registered = [balanceMethod, x402Method] as const;

/** The payer's request as its method admits it. */
export function admissionOf(deps: PaymentMethodDeps, payer: Payer): PayerAdmission {
  const method = registered.find((candidate) => candidate.kind === payer.kind);
  if (!method) throw new Error(`no payment method takes a payer of kind ${payer.kind}`);
  return (method as PaymentMethod<Payer, PaymentMethodDeps>).admission(deps, payer);
}
