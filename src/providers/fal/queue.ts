// fal through its official client's queue API: submit (with a callback URL when we have a public one), status,
// result, cancel, and the check of its callbacks. Every call is bounded by FAL_TIMEOUT_SECONDS.
import { ApiError, createFalClient } from '@fal-ai/client';
import type { ProvidersConfig } from '../../config/config.ts';
import { classifyUpstreamHttpError } from '../upstream-errors.ts';
import { upstreamInput } from '../upstream-input.ts';
import { downloadOutputs, type OutputLimits } from '../upstream-output.ts';
import { ProviderRefusal, type UpstreamJobs } from '../types.ts';
import { createFalCallbackVerifier, falJwksUrl } from './callback-signature.ts';
import { withDeadline } from '../../net/deadline.ts';

type FalConfig = Pick<ProvidersConfig['fal'], 'key' | 'queueUrl' | 'jwksUrl' | 'userId' | 'timeoutSeconds'>;

function classify(error: unknown): Error {
  if (!(error instanceof ApiError)) return error as Error; // network or our timeout: transient
  const detail = (error.body as { detail?: unknown } | undefined)?.detail;
  return classifyUpstreamHttpError(
    { status: error.status, detail: typeof detail === 'string' ? detail : undefined },
    error,
  );
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

export function createFalJobs(config: FalConfig, outputs: OutputLimits): UpstreamJobs {
  const queueUrl = config.queueUrl;
  const client = createFalClient({
    credentials: config.key,
    // Temporal owns retries: the client would otherwise retry 429, 5xx and network errors itself, with sleeps no
    // signal can cut short, and might submit a job twice. Its errors also lack headers, so Retry-After is read here.
    fetch: async (input, init) => {
      let response: Response;
      try {
        response = await fetch(input, init);
      } catch (error) {
        if ((error as Error).name === 'AbortError' || (error as Error).name === 'TimeoutError') throw error;
        // eslint-disable-next-line preserve-caught-error -- a cause would make the fal client retry inside
        throw new Error(`fal could not be reached: ${(error as Error).message}`);
      }
      if (response.status === 429 || response.status >= 500) {
        throw classifyUpstreamHttpError(
          { status: response.status, retryAfter: response.headers.get('retry-after') },
          new Error(`fal answered HTTP ${response.status}`),
        );
      }
      return response;
    },
    // A stand-in or a proxy in place of https://queue.fal.run.
    requestMiddleware: async (request) =>
      queueUrl ? { ...request, url: request.url.replace(/^https:\/\/queue\.fal\.run/, queueUrl) } : request,
  });
  const call = async <T>(signal: AbortSignal, step: (abortSignal: AbortSignal) => Promise<T>) => {
    try {
      return await withDeadline(config.timeoutSeconds * 1000, [signal], step);
    } catch (error) {
      throw classify(error);
    }
  };

  return {
    async submit(request, model, { callbackUrl, signal }) {
      const submitted = await call(signal, (abortSignal) =>
        client.queue.submit(model.upstream.model, {
          input: upstreamInput(request, model),
          abortSignal,
          ...(callbackUrl ? { webhookUrl: callbackUrl } : {}),
        }),
      );
      return submitted.request_id;
    },

    async status(model, requestId, signal) {
      const status = await call(signal, (abortSignal) =>
        client.queue.status(model.upstream.model, { requestId, logs: false, abortSignal }),
      );
      if (status.status === 'COMPLETED') return { state: 'succeeded' };
      return status.status === 'IN_QUEUE'
        ? { state: 'pending', stage: 'in upstream queue', queuePosition: status.queue_position }
        : { state: 'pending', stage: 'running upstream' };
    },

    async collect(model, requestId, { signal, outputDir }) {
      const result = await call(signal, (abortSignal) =>
        client.queue.result(model.upstream.model, { requestId, abortSignal }),
      );
      const urls = resultFileUrls(result.data);
      if (urls.length === 0) throw new ProviderRefusal('The model returned no output.');
      return {
        files: await downloadOutputs(urls, {
          maxBytes: outputs.maxBytes,
          allowPrivate: outputs.allowPrivate,
          signal,
          outputDir,
        }),
      };
    },

    async cancel(model, requestId) {
      await call(AbortSignal.timeout(config.timeoutSeconds * 1000), (abortSignal) =>
        client.queue.cancel(model.upstream.model, { requestId, abortSignal }),
      );
    },

    verifyCallback: createFalCallbackVerifier(config.jwksUrl ?? falJwksUrl, config.userId),
  };
}
