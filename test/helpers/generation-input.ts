// The workflow input admission sends for a request, made without admitting it: for tests that commit a task row and
// start its workflow themselves (an admission Temporal lost). The same claim gives the task id a real POST gets.
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import type { Catalog } from '../../src/catalog/catalog.ts';
import type { Config } from '../../src/config/config.ts';
import type { GenerationRequest, InputLayoutRequest } from '../../src/domain/generation-request.ts';
import { requestHash } from '../../src/generations/request.ts';
import { admissibleRequest } from '../../src/use-cases/generations/admissible.ts';
import { balanceTaskId } from '../../src/payments/methods/balance/balance-method.ts';
import { generationInput } from '../../src/use-cases/generations/workflow-input.ts';
import { paidTask, paymentAuthorization } from '../../src/payments/methods/x402/admission.ts';
import { paymentIdOf } from '../../src/payments/methods/x402/payment-extensions.ts';
import type { PaymentIdentity } from '../../src/payments/methods/x402/payment-header.ts';
import type { GenerationInput } from '../../workflows/contracts/generation.types.ts';

interface Deps {
  config: Config;
  catalog: Catalog;
}

/** A request paid from the account's balance, under `idempotencyKey` (null: a new task id). */
export function balanceGenerationInput(
  deps: Deps,
  request: { accountId: string; body: GenerationRequest | InputLayoutRequest; idempotencyKey: string | null },
): GenerationInput {
  const admissible = admissibleRequest(deps, request.body);
  const { accountId, idempotencyKey } = request;
  const taskId = balanceTaskId(deps.config.outputs.taskIdSecret, accountId, idempotencyKey);
  const claim = { taskId, accountId, idempotencyKey };
  return generationInput(deps.config, { ...claim, requestHash: requestHash(admissible.request) }, admissible);
}

/** A request paid with a verified x402 authorization. */
export function paidGenerationInput(
  deps: Deps,
  body: GenerationRequest | InputLayoutRequest,
  paid: { identity: PaymentIdentity; requirement: PaymentRequirements; payload: PaymentPayload },
): GenerationInput {
  const admissible = admissibleRequest(deps, body);
  const claim = {
    ...paidTask(deps.config.x402.taskIdSecret, paid.identity, paymentIdOf(paid.payload)),
    idempotencyKey: null,
    requestHash: requestHash(admissible.request),
    payment: paymentAuthorization(deps.config, paid),
  };
  return generationInput(deps.config, claim, admissible);
}
