// Which runner serves a model: a local engine by its upstream name, or an upstream adapter by provider and type.
import type { CatalogEntry } from '../catalog/catalog.schema.ts';
import type { Config } from '../config.ts';
import { localEngines } from './local/index.ts';
import { createOpenAIChatRunner } from './openai/chat.ts';
import { createReplicateRunner } from './replicate/predictions.ts';
import type { ProviderRunner } from './types.ts';

/** The runner for a model, or undefined when this build or this configuration cannot run it. */
export function runnerFor(config: Config, model: CatalogEntry): ProviderRunner | undefined {
  switch (model.provider) {
    case 'local':
      return localEngines[model.upstream.model];
    case 'openai':
      if (!config.OPENAI_BASE_URL && !config.OPENAI_API_KEY) return undefined;
      return model.type === 'text-to-text' ? createOpenAIChatRunner(config) : undefined;
    case 'replicate':
      // Every Replicate model runs the same way: a prediction with the model's inputs, outputs as URLs.
      return config.REPLICATE_API_TOKEN ? createReplicateRunner(config) : undefined;
    default:
      // The fal adapter lands with the rest of the providers issue.
      return undefined;
  }
}
