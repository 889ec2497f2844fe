// The generation workflow's input for an admission, whoever pays: the same claim (as the payer's method names it)
// always gives the same task id, so a retried request joins the first one's workflow.
import type { CatalogModel } from '../../catalog/catalog.ts';
import type { Config } from '../../config/config.ts';
import type { PaidBy } from '../../payments/methods/payment-method.ts';
import { type GenerationInput, generationShape } from '../../../workflows/contracts/generation.types.ts';
import type { AdmissibleRequest } from './admissible.ts';

/** Who a task is for and how a retry names it; `requestHash` is what the admit update compares, sent once from here. */
export interface TaskClaim extends PaidBy {
  requestHash: string;
  /** The failed task this one replays (genctl tasks replay). */
  replayOf?: string;
}

/** The providers the workflow may hand the task to, in order, when the model's own fails (catalog `fallbacks`). */
const fallbackProvidersOf = (model: CatalogModel): Pick<GenerationInput, 'fallbackProviders'> =>
  model.fallbacks ? { fallbackProviders: model.fallbacks.map((route) => route.provider) } : {};

export function generationInput(
  config: Pick<Config, 'providers'>,
  claim: TaskClaim,
  priced: AdmissibleRequest,
): GenerationInput {
  const { request, model, costMicros, inputSeconds } = priced;
  return {
    taskId: claim.taskId,
    accountId: claim.accountId,
    request,
    costMicros: costMicros.toString(),
    idempotencyKey: claim.idempotencyKey,
    modelId: model.id,
    requestHash: claim.requestHash,
    // How long the model may run, and (apart from that) how long the task may wait for a provider slot.
    timeoutSeconds: model.timeout_seconds,
    queueTimeoutSeconds: config.providers.queueTimeoutSeconds,
    ...fallbackProvidersOf(model),
    shape: generationShape,
    ...(inputSeconds !== undefined ? { inputSeconds } : {}),
    ...(claim.replayOf ? { replayOf: claim.replayOf } : {}),
    ...(claim.payment ? { payment: claim.payment } : {}),
    ...(claim.apiKeyId ? { apiKeyId: claim.apiKeyId } : {}),
  };
}
