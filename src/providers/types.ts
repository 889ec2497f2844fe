// The provider adapter interface: a runner answers in one call; upstream jobs are submitted, awaited and collected
// by the workflow. ProviderRefusal is permanent (refund), ProviderRetryLater asks for a delay, anything else retries.
import type { CatalogModel } from '../catalog/catalog.schema.ts';
import type { Usage } from '../catalog/pricing.ts';
import type { GenerationRequest } from '../domain/generation-request.ts';
import type { TaskProgress } from '../domain/values.ts';

/** An output: small ones in memory, large ones (video, audio, downloads) as a file in the call's `outputDir`. */
export type ProducedFile = { extension: string; contentType: string } & (
  { data: Buffer; path?: never } | { path: string; data?: never }
);

export interface ProviderResult {
  files: ProducedFile[];
  /** What the upstream reports using, for settlement by actual use (tokens, seconds of input). */
  usage?: Usage;
}

export class ProviderRefusal extends Error {
  override name = 'ProviderRefusal';
}

/**
 * The upstream refused the gateway's own account (a wrong key, no credit): the operator's to fix, not the caller's
 * request. Its message is for operators only.
 */
export class ProviderAccountError extends Error {
  override name = 'ProviderAccountError';
  constructor(
    message: string,
    /** The upstream's HTTP status (401, 402 or 403). */
    readonly status: number,
  ) {
    super(message);
  }
}

/** Transient, with the delay the upstream asked for (Retry-After). */
export class ProviderRetryLater extends Error {
  override name = 'ProviderRetryLater';
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
  }
}

export interface ProviderContext {
  /** Downloads a caller's input with the size limit and the private-network guard. */
  fetchInput(url: string): Promise<{ data: Buffer; contentType: string }>;
  /** Aborted when this attempt must stop: the task was cancelled, the call timed out, or the worker shuts down. */
  signal: AbortSignal;
  /** Tells callers how far the run is (shown on the task while it runs); cheap to call often. */
  progress?: (progress: TaskProgress) => void;
  /** This call's own directory, removed once its outputs are stored: a large output written here never sits whole in memory. */
  outputDir: string;
}

/** What collecting a finished job needs: where to put its outputs, and when to stop. */
export interface CollectContext {
  signal: AbortSignal;
  outputDir: string;
}

/** Runs one request on one model in one call. */
export type ProviderRunner = (
  request: GenerationRequest,
  model: CatalogModel,
  context: ProviderContext,
) => Promise<ProviderResult>;
export type LocalEngine = ProviderRunner;

/** Where an upstream job stands. */
export type JobState =
  | { state: 'pending'; queuePosition?: number; stage?: string; percent?: number }
  | { state: 'succeeded' }
  /** The upstream ran the job and it failed: permanent, with the upstream's reason (caller-readable). */
  | { state: 'failed'; reason: string };

/** A callback an upstream sent us, as received (the body raw, since signatures cover its exact bytes). */
export interface UpstreamCallback {
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One header of a callback (the first, if sent twice), or undefined. */
export function callbackHeader(callback: UpstreamCallback, name: string): string | undefined {
  const value = callback.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** An upstream that queues work: submit, status, result, cancel, and its signed completion callbacks. */
export interface UpstreamJobs {
  /** Queues the request; `callbackUrl`, when given, is where the upstream announces the job's end. */
  submit(
    request: GenerationRequest,
    model: CatalogModel,
    options: { callbackUrl?: string; signal: AbortSignal },
  ): Promise<string>;
  status(model: CatalogModel, jobId: string, signal: AbortSignal): Promise<JobState>;
  /** The finished job's outputs, copied into our hands (upstream URLs expire). */
  collect(model: CatalogModel, jobId: string, context: CollectContext): Promise<ProviderResult>;
  /** Best effort: asks the upstream to stop (and stop billing) a job nobody will collect. */
  cancel(model: CatalogModel, jobId: string): Promise<void>;
  /** The job id a genuine callback is about, or undefined when the signature or its age does not hold. */
  verifyCallback(callback: UpstreamCallback): Promise<string | undefined>;
}

/** How a model runs: in one call, or as an upstream job. */
export type Provider = { kind: 'runner'; run: ProviderRunner } | { kind: 'jobs'; jobs: UpstreamJobs };
