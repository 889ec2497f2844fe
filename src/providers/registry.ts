// Which runner serves a model: a local engine by its upstream name, or an upstream adapter by provider and type.
import type { CatalogEntry } from '../catalog/catalog.schema.ts';
import type { Config } from '../config.ts';
import { createFalRunner } from './fal/queue.ts';
import { localEngines } from './local/index.ts';
import { createOpenAIChatRunner } from './openai/chat.ts';
import { createReplicateRunner } from './replicate/predictions.ts';
import type { ProviderRunner } from './types.ts';

/** Whether this build, so configured, can run the model (without building a client). */
export function canRun(config: Config, model: CatalogEntry): boolean {
  switch (model.provider) {
    case 'local': return model.upstream.model in localEngines;
    // Images, speech and transcription over the OpenAI API land with the rest of the providers issue.
    case 'openai': return Boolean(config.OPENAI_BASE_URL || config.OPENAI_API_KEY) && model.type === 'text-to-text';
    case 'replicate': return Boolean(config.REPLICATE_API_TOKEN);
    case 'fal': return Boolean(config.FAL_KEY);
  }
}

/** The runner for a model, or undefined when this build or this configuration cannot run it. */
export function runnerFor(config: Config, model: CatalogEntry): ProviderRunner | undefined {
  if (!canRun(config, model)) return undefined;
  switch (model.provider) {
    case 'local': return localEngines[model.upstream.model];
    case 'openai': return createOpenAIChatRunner(config);
    case 'replicate': return createReplicateRunner(config);
    case 'fal': return createFalRunner(config);
  }
}
