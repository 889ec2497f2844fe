// Paying for one generation with x402 instead of an account: the price is admission's own, and the requirements
// name one `exact` USDC payment per enabled chain, to X402_PAY_TO. A payment is verified before anything else.
import type { IncomingHttpHeaders } from 'node:http';
import { enabledChains } from '../chain/settings.ts';
import { FieldError, NotImplementedError, PaymentRequiredError } from '../domain/errors.ts';
import type { GenerationRequest, InputLayoutRequest } from '../domain/generation-request.ts';
import { formatUsd } from '../money.ts';
import type { PaymentFacilitator } from '../x402/facilitator.ts';
import { matchRequirement, PaymentHeaderError, readPaymentHeader } from '../x402/payment-header.ts';
import { paymentRequiredHeader, paymentRequirementsFor } from '../x402/requirements.ts';
import { admissibleRequest, type GenerationServiceDeps } from './generations.ts';

/** Collecting the outputs after the model's own timeout: an authorization must still be valid when it settles. */
const collectionSeconds = 600;

export interface UnpaidGeneration {
  body: GenerationRequest | InputLayoutRequest;
  /** The URL the payment is for (the x402 `resource`). */
  resourceUrl: string;
  /** The request's headers: a payment comes in PAYMENT-SIGNATURE (v2) or X-PAYMENT. */
  headers: IncomingHttpHeaders;
}

/** Answers a call without an API key: what to pay (402), why a payment was refused (402), or the verdict on it. */
export async function requirePayment(
  deps: GenerationServiceDeps & { facilitator: () => PaymentFacilitator },
  input: UnpaidGeneration,
): Promise<never> {
  const { model, costMicros } = admissibleRequest(deps, input.body);
  const chains = enabledChains(deps.config);
  if (!model.supports_x402 || chains.length === 0) {
    throw new FieldError('model', `${model.id} cannot be paid with x402 on this server; send an API key`);
  }
  const required = paymentRequirementsFor({
    chains,
    payTo: deps.config.X402_PAY_TO,
    amountMicros: costMicros,
    maxTimeoutSeconds: model.timeout_seconds + collectionSeconds,
    resource: { url: input.resourceUrl, description: `${model.name} (${model.id})`, mimeType: 'application/json' },
  });
  const refuse = (message: string, reason?: string) => {
    const answer = reason ? { ...required, error: reason } : required;
    return new PaymentRequiredError(message, costMicros, answer, paymentRequiredHeader(answer));
  };

  let paid;
  try {
    paid = readPaymentHeader(input.headers);
  } catch (error) {
    if (!(error instanceof PaymentHeaderError)) throw error;
    throw refuse(`The ${error.headerName} header could not be read (${error.code}); pay again.`, error.code);
  }
  if (!paid) {
    throw refuse(
      `This generation costs $${formatUsd(costMicros)}: pay it with x402 (the requirements are in this answer and ` +
        'its PAYMENT-REQUIRED header), or send an API key.',
    );
  }
  const requirement = matchRequirement(required.accepts, paid.payload);
  if (!requirement) {
    throw refuse(
      'The payment does not pay these requirements (its scheme, network, amount, asset or recipient differ); pay again.',
      'payment_requirements_mismatch',
    );
  }
  const verdict = await deps.facilitator().verify(paid.payload, requirement);
  if (!verdict.isValid) {
    const reason = verdict.invalidReason ?? 'invalid_payment';
    throw refuse(`The payment was refused: ${reason}. Nothing was charged.`, reason);
  }
  throw new NotImplementedError(
    'The payment is valid, but this build does not take x402 payments yet: the authorization was not used and ' +
      'nothing was charged. Send an API key instead.',
  );
}
