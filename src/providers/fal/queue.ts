// fal through its official client's queue API: submit, poll the status with heartbeats (the request id rides
// along, so a retried attempt resumes the same job), fetch the result (a job can report COMPLETED and still
// fail there), copy the output files out at once, and cancel upstream when the task is cancelled.
import { ApiError, createFalClient } from '@fal-ai/client';
import type { CatalogModel } from '../../catalog/catalog.ts';
import type { Config } from '../../config.ts';
import { classifyUpstreamHttpError } from '../upstream-errors.ts';
import { upstreamInput } from '../upstream-input.ts';
import { downloadOutput } from '../upstream-output.ts';
import { ProviderRefusal, type ProviderRunner } from '../types.ts';

type FalConfig = Pick<Config, 'FAL_KEY' | 'FAL_QUEUE_URL' | 'PROVIDER_POLL_INTERVAL_MS' | 'INPUT_MAX_BYTES'>;

function classify(error: unknown): Error {
  if (!(error instanceof ApiError)) return error as Error; // network: transient
  const detail = (error.body as { detail?: unknown } | undefined)?.detail;
  return classifyUpstreamHttpError({ status: error.status, detail: typeof detail === 'string' ? detail : undefined }, error);
}

/** Every `{ url }` file in a fal result (images[], image, video, audio, model_mesh, …), in document order. */
export function resultFileUrls(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) resultFileUrls(item, found);
  else if (value && typeof value === 'object') {
    const url = (value as { url?: unknown }).url;
    if (typeof url === 'string' && /^https?:\/\//.test(url)) found.push(url);
    else for (const child of Object.values(value)) resultFileUrls(child, found);
  }
  return found;
}

export function createFalRunner(config: FalConfig): ProviderRunner {
  const queueUrl = config.FAL_QUEUE_URL;
  const client = createFalClient({
    credentials: config.FAL_KEY,
    // A stand-in or a proxy in place of https://queue.fal.run.
    requestMiddleware: async (request) => (queueUrl ? { ...request, url: request.url.replace(/^https:\/\/queue\.fal\.run/, queueUrl) } : request),
  });
  const call = async <T>(step: () => Promise<T>) => {
    try {
      return await step();
    } catch (error) {
      throw classify(error);
    }
  };

  return async (request, model: CatalogModel, context) => {
    const endpoint = model.upstream.model;
    const resumed = (context.lastCheckpoint as { requestId?: string } | undefined)?.requestId;
    const requestId = resumed ?? (await call(() => client.queue.submit(endpoint, { input: upstreamInput(request, model) }))).request_id;
    context.checkpoint({ requestId });
    // Only a cancelled task cancels the upstream job: a worker shutdown or a timed-out attempt leaves it running
    // for the next attempt to resume.
    const cancelUpstream = () => { if (context.cancelRequested()) void client.queue.cancel(endpoint, { requestId }).catch(() => undefined); };
    if (context.signal.aborted) cancelUpstream();
    context.signal.addEventListener('abort', cancelUpstream, { once: true });
    try {
      for (;;) {
        const status = await call(() => client.queue.status(endpoint, { requestId, logs: false }));
        if (status.status === 'COMPLETED') break;
        await new Promise((resolve) => setTimeout(resolve, config.PROVIDER_POLL_INTERVAL_MS));
        if (context.signal.aborted) throw new Error('cancelled');
      }
    } finally {
      context.signal.removeEventListener('abort', cancelUpstream);
    }
    const result = await call(() => client.queue.result(endpoint, { requestId }));
    const urls = resultFileUrls(result.data);
    if (urls.length === 0) throw new ProviderRefusal('The model returned no output.');
    const files = await Promise.all(urls.map((url) => downloadOutput(url, { maxBytes: config.INPUT_MAX_BYTES, timeoutMs: 60_000, signal: context.signal })));
    return { files };
  };
}
