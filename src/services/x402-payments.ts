// Paying for one generation with x402 instead of an account: the price is admission's own, and the requirements
// name one `exact` USDC payment per enabled chain, to X402_PAY_TO.
import { enabledChains } from '../chain/settings.ts';
import { FieldError, NotImplementedError, PaymentRequiredError } from '../domain/errors.ts';
import type { GenerationRequest, InputLayoutRequest } from '../domain/generation-request.ts';
import { formatUsd } from '../money.ts';
import { paymentRequiredHeader, paymentRequirementsFor } from '../x402/requirements.ts';
import { admissibleRequest, type GenerationServiceDeps } from './generations.ts';

/** Collecting the outputs after the model's own timeout: an authorization must still be valid when it settles. */
const collectionSeconds = 600;

export interface UnpaidGeneration {
  body: GenerationRequest | InputLayoutRequest;
  /** The URL the payment is for (the x402 `resource`). */
  resourceUrl: string;
  /** Whether the request carries a payment (PAYMENT-SIGNATURE or X-PAYMENT). */
  paid: boolean;
}

/** Answers a call without an API key: what to pay (402), or, for a payment, that this build cannot take it yet. */
export function requirePayment(deps: GenerationServiceDeps, input: UnpaidGeneration): never {
  const { model, costMicros } = admissibleRequest(deps, input.body);
  const chains = enabledChains(deps.config);
  if (!model.supports_x402 || chains.length === 0) {
    throw new FieldError('model', `${model.id} cannot be paid with x402 on this server; send an API key`);
  }
  if (input.paid) {
    throw new NotImplementedError(
      'Paying with x402 lands in a later build of this server: no payment was taken. Send an API key instead.',
    );
  }
  const required = paymentRequirementsFor({
    chains,
    payTo: deps.config.X402_PAY_TO,
    amountMicros: costMicros,
    maxTimeoutSeconds: model.timeout_seconds + collectionSeconds,
    resource: { url: input.resourceUrl, description: `${model.name} (${model.id})`, mimeType: 'application/json' },
  });
  throw new PaymentRequiredError(
    `This generation costs $${formatUsd(costMicros)}: pay it with x402 (the requirements are in this answer and ` +
      'its PAYMENT-REQUIRED header), or send an API key.',
    costMicros,
    required,
    paymentRequiredHeader(required),
  );
}
