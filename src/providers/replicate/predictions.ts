// Replicate through its official client: predictions (with a webhook when we have a public URL), their Standard
// Webhooks callbacks, and cancellation. Every call is bounded by REPLICATE_TIMEOUT_SECONDS.
import Replicate, { type Prediction } from 'replicate';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { ProvidersConfig } from '../../config/config.ts';
import { callbackHeader, type JobState, ProviderRefusal, type UpstreamCallback, type UpstreamJobs } from '../types.ts';
import { classifyUpstreamHttpError } from '../upstream-errors.ts';
import { upstreamInput } from '../upstream-input.ts';
import { downloadOutputs, type OutputLimits } from '../upstream-output.ts';
import { withDeadline } from '../../net/deadline.ts';

type ReplicateConfig = Pick<ProvidersConfig['replicate'], 'apiToken' | 'baseUrl' | 'webhookSecret' | 'timeoutSeconds'>;

function classify(error: unknown): Error {
  const response = (error as { response?: Response }).response;
  if (!response) return error as Error; // network or our timeout: transient
  return classifyUpstreamHttpError(
    { status: response.status, retryAfter: response.headers.get('retry-after') },
    error as Error,
  );
}

const outputUrls = (output: unknown): string[] =>
  (Array.isArray(output) ? output : [output]).filter(
    (item): item is string => typeof item === 'string' && /^https?:\/\//.test(item),
  );

/** The last tqdm progress bar in a prediction's logs (` 42%|████      | 21/50`), which most models print. */
export function logPercent(logs: string | undefined): { percent?: number } {
  const bars = [...(logs ?? '').matchAll(/(\d{1,3})%\|/g)];
  const percent = Number(bars.at(-1)?.[1]);
  return Number.isInteger(percent) && percent <= 100 ? { percent } : {};
}

/** What a prediction's status means for the task waiting on it. */
function jobStateOf(prediction: Prediction): JobState {
  switch (prediction.status) {
    case 'succeeded':
      return { state: 'succeeded' };
    case 'failed':
      return {
        state: 'failed',
        reason: `The model failed: ${String(prediction.error ?? 'no reason given').slice(0, 300)}`,
      };
    case 'canceled':
    case 'aborted':
      return { state: 'failed', reason: 'The prediction was cancelled at the provider.' };
    case 'processing':
      return { state: 'pending', stage: 'running upstream', ...logPercent(prediction.logs) };
    default:
      return { state: 'pending', stage: 'starting upstream' };
  }
}

/** The signing secret: configured, or asked of Replicate once (GET /webhooks/default/secret) through `fetchSecret`. */
function signingSecretOf(
  config: ReplicateConfig,
  fetchSecret: (signal: AbortSignal) => Promise<{ key: string }>,
): () => Promise<string> {
  let secret: Promise<string> | undefined;
  return () => {
    secret ??= config.webhookSecret
      ? Promise.resolve(config.webhookSecret)
      : fetchSecret(AbortSignal.timeout(30_000)).then((answer) => answer.key);
    return secret.catch((error: unknown) => {
      secret = undefined; // ask again next time
      throw error;
    });
  };
}

// Replicate's webhooks are Standard Webhooks: the library checks the signature in constant time and refuses
// a timestamp more than five minutes off.
function verifiedPredictionId(callback: UpstreamCallback, secret: string): string | undefined {
  const headers = Object.fromEntries(
    ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [
      name,
      callbackHeader(callback, name) ?? '',
    ]),
  );
  const body = callback.body.toString('utf8');
  try {
    new Webhook(secret).verify(body, headers);
  } catch (error) {
    if (error instanceof WebhookVerificationError) return undefined;
    throw error;
  }
  const prediction = JSON.parse(body) as { id?: unknown };
  return typeof prediction.id === 'string' ? prediction.id : undefined;
}

export function createReplicateJobs(config: ReplicateConfig, outputs: OutputLimits): UpstreamJobs {
  const client = new Replicate({
    auth: config.apiToken,
    baseUrl: config.baseUrl,
    useFileOutput: false,
  });
  const call = async <T>(signal: AbortSignal, step: (signal: AbortSignal) => Promise<T>) => {
    try {
      return await withDeadline(config.timeoutSeconds * 1000, [signal], step);
    } catch (error) {
      throw classify(error);
    }
  };
  const signingSecret = signingSecretOf(config, (signal) =>
    call(signal, (s) => client.webhooks.default.secret.get({ signal: s })),
  );
  const get = (id: string, signal: AbortSignal): Promise<Prediction> =>
    call(signal, (s) => client.predictions.get(id, { signal: s }));

  return {
    async submit(request, model, { callbackUrl, signal }) {
      const prediction = await call(signal, (s) =>
        client.predictions.create({
          model: model.upstream.model,
          input: upstreamInput(request, model),
          signal: s,
          ...(callbackUrl ? { webhook: callbackUrl, webhook_events_filter: ['completed'] as const } : {}),
        }),
      );
      return prediction.id;
    },

    async status(_model, id, signal) {
      return jobStateOf(await get(id, signal));
    },

    async collect(_model, id, { signal, outputDir }) {
      const urls = outputUrls((await get(id, signal)).output);
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

    async cancel(_model, id) {
      await call(AbortSignal.timeout(config.timeoutSeconds * 1000), (signal) =>
        client.predictions.cancel(id, { signal }),
      );
    },

    async verifyCallback(callback) {
      return verifiedPredictionId(callback, await signingSecret());
    },
  };
}
