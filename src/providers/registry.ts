// Which runner serves a model: a local engine by its upstream name, or an upstream adapter by provider and type.
import type { CatalogEntry } from '../catalog/catalog.schema.ts';
import type { Config } from '../config.ts';
import { createFalRunner } from './fal/queue.ts';
import { localEngines } from './local/index.ts';
import { createOpenAIChatRunner } from './openai/chat.ts';
import { createOpenAIImageRunner, createOpenAISpeechRunner, createOpenAITranscriptionRunner } from './openai/media.ts';
import { createReplicateRunner } from './replicate/predictions.ts';
import type { ProviderRunner } from './types.ts';

/** The OpenAI-compatible endpoints by generation type (video, e.g. Sora, is not among them yet). */
const openAIRunners: Partial<Record<CatalogEntry['type'], (config: Config) => ProviderRunner>> = {
  'text-to-text': createOpenAIChatRunner,
  'text-to-image': createOpenAIImageRunner,
  'text-to-audio': createOpenAISpeechRunner,
  'speech-to-text': createOpenAITranscriptionRunner,
};

/** Whether this build, so configured, can run the model (without building a client). */
export function canRun(config: Config, model: CatalogEntry): boolean {
  switch (model.provider) {
    case 'local': return model.upstream.model in localEngines;
    case 'openai': return Boolean(config.OPENAI_BASE_URL || config.OPENAI_API_KEY) && model.type in openAIRunners;
    case 'replicate': return Boolean(config.REPLICATE_API_TOKEN);
    case 'fal': return Boolean(config.FAL_KEY);
  }
}

/** The runner for a model, or undefined when this build or this configuration cannot run it. */
export function runnerFor(config: Config, model: CatalogEntry): ProviderRunner | undefined {
  if (!canRun(config, model)) return undefined;
  switch (model.provider) {
    case 'local': return localEngines[model.upstream.model];
    case 'openai': return openAIRunners[model.type]!(config);
    case 'replicate': return createReplicateRunner(config);
    case 'fal': return createFalRunner(config);
  }
}
