// Which provider serves a model: a local engine by its upstream name, an OpenAI-compatible runner by type, or
// the fal and Replicate job queues. Clients are built once per configuration, not per call.
import type { CatalogEntry, ProviderSlug } from '../catalog/catalog.schema.ts';
import type { Config } from '../config/config.ts';
import { createFalJobs } from './fal/queue.ts';
import { localEngines } from './local/index.ts';
import { createOpenAIChatRunner } from './openai/chat.ts';
import { createOpenAIUpstream, type OpenAIUpstream } from './openai/client.ts';
import { createOpenAIImageRunner, createOpenAISpeechRunner, createOpenAITranscriptionRunner } from './openai/media.ts';
import { createOpenAIVideoJobs } from './openai/videos.ts';
import { createReplicateJobs } from './replicate/predictions.ts';
import type { Provider, ProviderRunner, UpstreamJobs } from './types.ts';

/** The OpenAI-compatible endpoints by generation type: answered in one call, or (video) a job to poll. */
const openAIRunners: Partial<Record<CatalogEntry['type'], (upstream: OpenAIUpstream) => ProviderRunner>> = {
  'text-to-text': createOpenAIChatRunner,
  'text-to-image': createOpenAIImageRunner,
  'text-to-audio': createOpenAISpeechRunner,
  'speech-to-text': createOpenAITranscriptionRunner,
};
const openAIJobs: Partial<Record<CatalogEntry['type'], (upstream: OpenAIUpstream) => UpstreamJobs>> = {
  'text-to-video': createOpenAIVideoJobs,
};

/** Whether this build, so configured, can run the model (without building a client). */
export function canRun(config: Config, model: CatalogEntry): boolean {
  switch (model.provider) {
    case 'local':
      return model.upstream.model in localEngines;
    case 'openai':
      return (
        Boolean(config.OPENAI_BASE_URL || config.OPENAI_API_KEY) &&
        (model.type in openAIRunners || model.type in openAIJobs)
      );
    case 'replicate':
      return Boolean(config.REPLICATE_API_TOKEN);
    case 'fal':
      return Boolean(config.FAL_KEY);
  }
}

/** Whether the model's own provider or one of its fallback routes can run it here: admission's question. */
export const canRunSomeRoute = (config: Config, model: CatalogEntry): boolean =>
  canRun(config, model) ||
  (model.fallbacks ?? []).some((route) =>
    canRun(config, { ...model, provider: route.provider, upstream: route.upstream }),
  );

export interface Providers {
  /** How the model runs, or undefined when this build or this configuration cannot run it. */
  for(model: CatalogEntry): Provider | undefined;
  /** The job queue of an upstream that calls back (fal, Replicate), when configured. */
  jobsOf(provider: ProviderSlug): UpstreamJobs | undefined;
}

/** Builds on first use, once: clients of providers nobody calls are never made. */
const lazy = <T>(build: () => T): (() => T) => {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
};

export function createProviders(config: Config): Providers {
  const openAI = lazy(() => createOpenAIUpstream(config));
  // A Map: a provider name comes from a callback's path, and `constructor` or `__proto__` must find nothing.
  const jobs = new Map<string, () => UpstreamJobs>([
    ...(config.FAL_KEY ? [['fal', lazy(() => createFalJobs(config))] as const] : []),
    ...(config.REPLICATE_API_TOKEN ? [['replicate', lazy(() => createReplicateJobs(config))] as const] : []),
  ]);
  return {
    for(model) {
      if (!canRun(config, model)) return undefined;
      switch (model.provider) {
        case 'local':
          return { kind: 'runner', run: localEngines[model.upstream.model]! };
        case 'openai': {
          const runner = openAIRunners[model.type];
          return runner
            ? { kind: 'runner', run: runner(openAI()) }
            : { kind: 'jobs', jobs: openAIJobs[model.type]!(openAI()) };
        }
        default:
          return { kind: 'jobs', jobs: jobs.get(model.provider)!() };
      }
    },
    jobsOf: (provider) => jobs.get(provider)?.(),
  };
}
