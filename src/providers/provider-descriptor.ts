// What the gateway knows of one provider, in one place: its names, what it needs configured, which models and
// fallback routes it runs, and how its client is built. Each provider folder exports one; provider-list.ts lists them.
import type { CatalogEntry } from '../catalog/catalog.schema.ts';
import type { ProvidersConfig } from '../config/config.ts';
import type { Provider, UpstreamJobs } from './types.ts';
import type { OutputLimits } from './upstream-output.ts';

/** A provider's client, built once per configuration on first use. */
export interface ProviderClient {
  /** How a model runs: in one call, or as an upstream job (asked only for a model the descriptor can run). */
  for(model: CatalogEntry): Provider;
  /** The job queue its upstream's signed callbacks are about, when it sends them. */
  callbacks?: UpstreamJobs;
}

export interface ProviderDescriptor<Slug extends string = string> {
  /** In model ids (`<slug>/<model>`), task queues, metric labels and callback paths: never renamed. */
  slug: Slug;
  /** How the models listing names it. */
  name: string;
  /** Whether its settings are given (a key, an address): without them none of its models runs here. */
  configured(config: ProvidersConfig): boolean;
  /** Whether it runs this model once configured (a local engine by name, an OpenAI-compatible endpoint by type). */
  runs(model: CatalogEntry): boolean;
  /** Why a fallback route on it cannot serve a model of `type` (checked when the catalog loads), or undefined. */
  unsupportedRoute(type: CatalogEntry['type']): string | undefined;
  /** How many of its calls one worker runs at once: its task queue's activity slots. */
  concurrency(config: ProvidersConfig): number;
  /** Whether its upstream announces a job's end at `/callbacks/<slug>/…` (then the client has `callbacks`). */
  sendsCallbacks: boolean;
  /** Builds its client from its settings; the registry calls it once, on first use. */
  connect(config: ProvidersConfig, outputs: OutputLimits): ProviderClient;
}
