// Which provider serves a model, dispatched through the provider list: each provider's descriptor says whether it can
// run the model here and builds its client. Clients are built once per configuration, on first use, not per call.
import type { CatalogEntry } from '../catalog/catalog.schema.ts';
import type { Config, ProvidersConfig } from '../config/config.ts';
import type { ProviderClient } from './provider-descriptor.ts';
import { providerList, providerNamed } from './provider-list.ts';
import type { Provider, UpstreamJobs } from './types.ts';
import type { OutputLimits } from './upstream-output.ts';

/** Whether this build, so configured, can run the model (without building a client). */
export function canRun(config: ProvidersConfig, model: CatalogEntry): boolean {
  const provider = providerNamed(model.provider);
  return Boolean(provider?.configured(config) && provider.runs(model));
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
  jobsOf(provider: string): UpstreamJobs | undefined;
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
  const clients = new Map<string, () => ProviderClient>(
    providerList.map((provider) => [provider.slug, lazy(() => provider.connect(providers, outputs))]),
  );
  return {
    for: (model) => (canRun(providers, model) ? clients.get(model.provider)!().for(model) : undefined),
    jobsOf(slug) {
      const provider = providerNamed(slug);
      return provider?.sendsCallbacks && provider.configured(providers) ? clients.get(slug)!().callbacks : undefined;
    },
  };
}
