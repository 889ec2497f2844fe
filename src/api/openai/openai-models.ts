// GET /openai/v1/models and /models/{id}: the catalog in OpenAI's list shape, ids as the gateway names them
// (`local/espeak`, `openai/gpt-image-1`, …), so a client picks one as it would an OpenAI model.
import { type AdapterExchange, run } from '../adapter-call.ts';
import { ApiError } from '../errors.ts';

interface CatalogModel {
  id: string;
  provider_slug: string;
  type: string;
  name: string;
  available: boolean;
}

/** Listed as created when the service started: the catalog has no dates of its own. */
const listedAt = Math.floor(Date.now() / 1000);

const openAiModel = (model: CatalogModel) => ({
  id: model.id,
  object: 'model' as const,
  created: listedAt,
  owned_by: model.provider_slug,
  // Extensions a client may ignore: what the model makes, and whether this server runs it now.
  type: model.type,
  name: model.name,
  available: model.available,
});

async function catalog(adapter: AdapterExchange): Promise<CatalogModel[]> {
  return ((await run(adapter, 'listModels', {})).body as { models: CatalogModel[] }).models;
}

export async function listModels(adapter: AdapterExchange) {
  return { object: 'list' as const, data: (await catalog(adapter)).map(openAiModel) };
}

export async function retrieveModel(adapter: AdapterExchange, id: string) {
  const model = (await catalog(adapter)).find((entry) => entry.id === id);
  if (!model) throw new ApiError('not_found', `The model '${id}' does not exist (GET /openai/v1/models lists them).`);
  return openAiModel(model);
}
