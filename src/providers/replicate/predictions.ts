// Replicate through its official client: create a prediction, poll it with heartbeats (the prediction id rides
// along, so a retried attempt resumes the same prediction instead of paying for a second), copy the outputs out
// at once, and cancel upstream when the task is cancelled.
import Replicate, { type Prediction } from 'replicate';
import type { Config } from '../../config.ts';
import { downloadOutput } from '../upstream-output.ts';
import { ProviderRefusal, type ProviderRunner } from '../types.ts';
import { classifyUpstreamHttpError } from '../upstream-errors.ts';
import { upstreamInput } from '../upstream-input.ts';

type ReplicateConfig = Pick<Config, 'REPLICATE_API_TOKEN' | 'REPLICATE_BASE_URL' | 'PROVIDER_POLL_INTERVAL_MS' | 'INPUT_MAX_BYTES'>;

const terminal = new Set(['succeeded', 'failed', 'canceled', 'aborted']);
function classify(error: unknown): Error {
  const response = (error as { response?: Response }).response;
  if (!response) return error as Error; // network: transient
  return classifyUpstreamHttpError({ status: response.status, retryAfter: response.headers.get('retry-after') }, error as Error);
}

const outputUrls = (output: unknown): string[] =>
  (Array.isArray(output) ? output : [output]).filter((item): item is string => typeof item === 'string' && /^https?:\/\//.test(item));

export function createReplicateRunner(config: ReplicateConfig): ProviderRunner {
  return async (request, model, context) => {
    const client = new Replicate({ auth: config.REPLICATE_API_TOKEN, baseUrl: config.REPLICATE_BASE_URL, useFileOutput: false });
    const call = async <T>(step: () => Promise<T>) => {
      try {
        return await step();
      } catch (error) {
        throw classify(error);
      }
    };
    const resumeId = (context.lastCheckpoint as { predictionId?: string } | undefined)?.predictionId;
    let prediction: Prediction = resumeId
      ? await call(() => client.predictions.get(resumeId))
      : await call(() => client.predictions.create({ model: model.upstream.model, input: upstreamInput(request, model) }));
    context.checkpoint({ predictionId: prediction.id });
    // Only a cancelled task cancels the upstream job: a worker shutdown or a timed-out attempt leaves it running
    // for the next attempt to resume.
    const cancelUpstream = () => { if (context.cancelRequested()) void client.predictions.cancel(prediction.id).catch(() => undefined); };
    if (context.signal.aborted) cancelUpstream();
    context.signal.addEventListener('abort', cancelUpstream, { once: true });
    try {
      while (!terminal.has(prediction.status)) {
        await new Promise((resolve) => setTimeout(resolve, config.PROVIDER_POLL_INTERVAL_MS));
        if (context.signal.aborted) throw new Error('cancelled');
        prediction = await call(() => client.predictions.get(prediction.id));
      }
    } finally {
      context.signal.removeEventListener('abort', cancelUpstream);
    }
    if (prediction.status === 'failed') {
      throw new ProviderRefusal(`The model failed: ${String(prediction.error ?? 'no reason given').slice(0, 300)}`);
    }
    if (prediction.status !== 'succeeded') throw new ProviderRefusal('The prediction was cancelled at the provider.');
    const urls = outputUrls(prediction.output);
    if (urls.length === 0) throw new ProviderRefusal('The model returned no output.');
    const files = await Promise.all(urls.map((url) => downloadOutput(url, { maxBytes: config.INPUT_MAX_BYTES, timeoutMs: 60_000, signal: context.signal })));
    return { files };
  };
}
