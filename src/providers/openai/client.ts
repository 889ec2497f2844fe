// One `openai` SDK client per configuration, shared by the chat, image, speech and transcription runners. Each
// call is bounded by OPENAI_TIMEOUT_SECONDS (never past the model's own timeout); Temporal owns retries.
import OpenAI from 'openai';
import type { CatalogModel } from '../../catalog/catalog.schema.ts';
import type { ProvidersConfig } from '../../config/config.ts';
import { classifyUpstreamHttpError } from '../upstream-errors.ts';
import type { OutputLimits } from '../upstream-output.ts';

type OpenAIConfig = Pick<ProvidersConfig['openai'], 'baseUrl' | 'apiKey' | 'timeoutSeconds'>;

export interface OpenAIUpstream {
  client: OpenAI;
  /** The most an output download may weigh. */
  maxOutputBytes: number;
  /** Whether output URLs may be at private addresses (ALLOW_PRIVATE_OUTPUT_URLS). */
  allowPrivateOutputs: boolean;
  /** Runs one SDK call with the abort signal and the timeout, its failure classified. */
  call<T>(model: CatalogModel, signal: AbortSignal, step: (options: OpenAI.RequestOptions) => Promise<T>): Promise<T>;
}

export function classifyOpenAIError(error: unknown): Error {
  if (!(error instanceof OpenAI.APIError) || error.status === undefined) return error as Error; // network or timeout: transient
  return classifyUpstreamHttpError({ status: error.status, retryAfter: error.headers?.get('retry-after') }, error);
}

export function createOpenAIUpstream(config: OpenAIConfig, outputs: OutputLimits): OpenAIUpstream {
  const client = new OpenAI({
    baseURL: config.baseUrl,
    apiKey: config.apiKey ?? 'not-needed',
    maxRetries: 0,
  });
  return {
    client,
    maxOutputBytes: outputs.maxBytes,
    allowPrivateOutputs: outputs.allowPrivate,
    async call(model, signal, step) {
      try {
        return await step({ signal, timeout: Math.min(config.timeoutSeconds, model.timeout_seconds) * 1000 });
      } catch (error) {
        throw classifyOpenAIError(error);
      }
    },
  };
}
