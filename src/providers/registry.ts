// Which provider serves a model: a local engine by its upstream name, an OpenAI-compatible runner by type, or
// the fal and Replicate job queues. Clients are built once per configuration, not per call.
import type { CatalogEntry, ProviderSlug } from '../catalog/catalog.schema.ts';
import type { Config, ProvidersConfig } from '../config/config.ts';
import { createFalJobs } from './fal/queue.ts';
import { localEngines } from './local/index.ts';
import { createOpenAIChatRunner } from './openai/chat.ts';
import { createOpenAIUpstream, type OpenAIUpstream } from './openai/client.ts';
import { createOpenAIImageRunner, createOpenAISpeechRunner, createOpenAITranscriptionRunner } from './openai/media.ts';
import { createOpenAIVideoJobs } from './openai/videos.ts';
import { createReplicateJobs } from './replicate/predictions.ts';
import type { Provider, ProviderRunner, UpstreamJobs } from './types.ts';
import type { OutputLimits } from './upstream-output.ts';

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
export function canRun(config: ProvidersConfig, model: CatalogEntry): boolean {
  switch (model.provider) {
    case 'local':
      return model.upstream.model in localEngines;
    case 'openai':
      return (
        Boolean(config.openai.baseUrl || config.openai.apiKey) &&
        (model.type in openAIRunners || model.type in openAIJobs)
      );
    case 'replicate':
      return Boolean(config.replicate.apiToken);
    case 'fal':
      return Boolean(config.fal.key);
  }
}

/** Whether the model's own provider or one of its fallback routes can run it here: admission's question. */
export const canRunSomeRoute = (config: ProvidersConfig, model: CatalogEntry): boolean =>
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

/** Outputs are held to the inputs' size limit. */
export const outputLimits = (config: Pick<Config, 'providers' | 'inputs'>): OutputLimits => ({
  maxBytes: config.inputs.maxBytes,
  allowPrivate: config.providers.allowPrivateOutputUrls,
});

export function createProviders(config: Pick<Config, 'providers' | 'inputs'>): Providers {
  const { providers } = config;
  const outputs = outputLimits(config);
  const openAI = lazy(() => createOpenAIUpstream(providers.openai, outputs));
  // A Map: a provider name comes from a callback's path, and `constructor` or `__proto__` must find nothing.
  const jobs = new Map<string, () => UpstreamJobs>([
    ...(providers.fal.key ? [['fal', lazy(() => createFalJobs(providers.fal, outputs))] as const] : []),
    ...(providers.replicate.apiToken
      ? [['replicate', lazy(() => createReplicateJobs(providers.replicate, outputs))] as const]
      : []),
  ]);
  return {
    for(model) {
      if (!canRun(providers, model)) return undefined;
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
