// What a provider gives back to the generation workflow. Adapters classify failures: a ProviderRefusal is
// permanent (the task fails and is refunded, its message is shown to the caller); any other error is transient
// and retried with backoff.
import type { CatalogModel } from '../catalog/catalog.ts';
import type { Usage } from '../catalog/pricing.ts';
import type { GenerationRequest } from '../generation/request.ts';

export interface ProducedFile {
  data: Buffer;
  extension: string;
  contentType: string;
}

export interface ProviderResult {
  files: ProducedFile[];
  /** What the upstream reports using, for settlement by actual use (tokens, seconds of input). */
  usage?: Usage;
}

export class ProviderRefusal extends Error {
  override name = 'ProviderRefusal';
}

/** Transient, with the delay the upstream asked for (Retry-After). */
export class ProviderRetryLater extends Error {
  override name = 'ProviderRetryLater';
  constructor(message: string, readonly delayMs: number) {
    super(message);
  }
}

export interface ProviderContext {
  /** Downloads a caller's input with the size limit and the private-network guard. */
  fetchInput(url: string): Promise<{ data: Buffer; contentType: string }>;
  /** What the previous attempt of this call saved (an upstream job id), so a retry resumes instead of resubmitting. */
  lastCheckpoint?: unknown;
  /** Saves progress (an upstream job id) with the activity's heartbeat. */
  checkpoint(details: unknown): void;
  /** Aborted when this attempt must stop: the task was cancelled, the call timed out, or the worker shuts down. */
  signal: AbortSignal;
  /** True only when the task itself was cancelled: then, and only then, the upstream job is cancelled too. */
  cancelRequested(): boolean;
}

/** Runs one request on one model. Local engines and upstream adapters alike. */
export type ProviderRunner = (request: GenerationRequest, model: CatalogModel, context: ProviderContext) => Promise<ProviderResult>;
export type LocalEngine = ProviderRunner;
