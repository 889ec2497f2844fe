// Which runner serves a model: a local engine by its upstream name, or an upstream adapter by provider and type.
import type { CatalogEntry } from '../catalog/catalog.schema.ts';
import type { Config } from '../config.ts';
import { localEngines } from './local/index.ts';
import { createOpenAIChatRunner } from './openai/chat.ts';
import type { ProviderRunner } from './types.ts';

type ProviderConfig = Pick<Config, 'FAL_KEY' | 'REPLICATE_API_TOKEN' | 'OPENAI_BASE_URL' | 'OPENAI_API_KEY'>;

/** The runner for a model, or undefined when this build or this configuration cannot run it. */
export function runnerFor(config: ProviderConfig, model: CatalogEntry): ProviderRunner | undefined {
  switch (model.provider) {
    case 'local':
      return localEngines[model.upstream.model];
    case 'openai':
      if (!config.OPENAI_BASE_URL && !config.OPENAI_API_KEY) return undefined;
      return model.type === 'text-to-text' ? createOpenAIChatRunner(config) : undefined;
    default:
      // fal and Replicate adapters land with the providers issue.
      return undefined;
  }
}
