// What a request to POST /generations is before anything is reserved: validated, resolved to a model this server can
// run, and priced (on its inputs' measured length where the model's price follows it). Refusals are domain errors.
import type { Catalog } from '../../catalog/catalog.ts';
import { priceRequest } from '../../catalog/pricing.ts';
import { ModelRequestError, resolveModel } from '../../catalog/resolve.ts';
import type { Config } from '../../config/config.ts';
import type { GenerationRequest, InputLayoutRequest } from '../../domain/generation-request.ts';
import type { Task } from '../../generated/prisma/client.ts';
import { measureInputs } from '../../generations/measured-inputs.ts';
import { foldMessages, missingInputs, normaliseLayout } from '../../generations/request.ts';
import { canRunSomeRoute } from '../../providers/registry.ts';
import type { Storage } from '../../storage/storage.ts';

/** Validates, prices and checks the request against the catalog and this server's providers. */
export function admissibleRequest(
  deps: { config: Pick<Config, 'providers'>; catalog: Catalog },
  body: GenerationRequest | InputLayoutRequest,
) {
  const request = foldMessages(normaliseLayout(body, (id) => deps.catalog.get(id)?.type));
  const model = resolveModel(deps.catalog, request);
  const missing = missingInputs(request, model);
  if (missing.length > 0) throw new ModelRequestError(missing);
  if (!canRunSomeRoute(deps.config.providers, model)) {
    const message = `${model.id} is not available on this server (its provider is not configured here)`;
    throw new ModelRequestError([{ field: 'model', message }]);
  }
  // Priced as declared: measuredRequest prices a model whose price follows its inputs' length on what they measure.
  const inputSeconds = undefined as number | undefined;
  return { request, model, costMicros: priceRequest(model, request).micros, inputSeconds };
}

export type AdmissibleRequest = ReturnType<typeof admissibleRequest>;

/**
 * A model priced on its inputs' length is priced on the length measured now, not the declared `duration` (400 naming
 * the field when an input cannot be measured or is too long).
 */
export async function measuredRequest(
  deps: { config: Pick<Config, 'inputs'>; storage?: Storage },
  admissible: AdmissibleRequest,
): Promise<AdmissibleRequest> {
  const { model, request } = admissible;
  if (!model.measured_inputs) return admissible;
  const inputSeconds = await measureInputs(model, request, {
    maxBytes: deps.config.inputs.maxBytes,
    timeoutMs: deps.config.inputs.measureTimeoutSeconds * 1000,
    allowPrivate: deps.config.inputs.allowPrivateUrls,
    storage: deps.storage,
  });
  if (inputSeconds === undefined) return admissible;
  return {
    ...admissible,
    inputSeconds,
    costMicros: priceRequest(model, { ...request, input_seconds: inputSeconds }).micros,
  };
}

/**
 * The least a request priced on its inputs' length can cost once they are measured: its price with the shortest input
 * (a second). No measurement prices it lower, so a payment for less is refused before anything is downloaded.
 */
export const leastMeasuredPrice = ({ model, request }: Pick<AdmissibleRequest, 'model' | 'request'>): bigint =>
  priceRequest(model, { ...request, input_seconds: 1 }).micros;

/** A task still queued was priced (its inputs measured) when it was admitted: its row says so, nothing is downloaded. */
export const pricedAsAdmitted = (
  admissible: AdmissibleRequest,
  task: Pick<Task, 'costReserved' | 'inputSeconds'>,
): AdmissibleRequest => ({
  ...admissible,
  costMicros: task.costReserved,
  inputSeconds: task.inputSeconds ?? undefined,
});
