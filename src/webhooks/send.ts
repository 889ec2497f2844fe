// One delivery attempt of a webhook: sign (Standard Webhooks), POST once, classify the answer. The retry schedule
// belongs to the delivery workflow; this only says whether the attempt landed and whether another can help.
import { Webhook } from 'standardwebhooks';
import { fetch } from 'undici';
import { outboundDispatcher, PrivateAddressError } from '../net/private-address.ts';
import { parseRetryAfter } from '../net/retry-after.ts';

export const webhookTimeoutMs = 15_000;

/**
 * delivered: a 2xx. gone: 410, the receiver asked us to stop. refused: this URL is never sent to (a private address
 * while those are not allowed, not http(s), no secret). failed: anything else (3xx, 4xx, 5xx, network, timeout),
 * worth another attempt.
 */
export type AttemptOutcome = 'delivered' | 'gone' | 'refused' | 'failed';

export interface AttemptResult {
  outcome: AttemptOutcome;
  statusCode: number | null;
  error: string | null;
  durationMs: number | null;
  /** What the receiver's Retry-After asked for, in milliseconds. */
  retryAfterMs: number | null;
}

export interface WebhookRequest {
  url: string;
  messageId: string;
  /** The exact bytes signed and sent. */
  body: string;
  /** `whsec_…` */
  secret: string;
  allowPrivate: boolean;
  timeoutMs?: number;
}

/** The three Standard Webhooks headers for one attempt: the timestamp is the attempt's, the id the message's. */
export function signatureHeaders(messageId: string, secret: string, body: string, at: Date): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(messageId, at, body),
  };
}

const refused = (error: string): AttemptResult => ({
  outcome: 'refused',
  statusCode: null,
  error,
  durationMs: null,
  retryAfterMs: null,
});

function networkError(error: unknown, timeoutMs: number): string {
  if ((error as Error).name === 'TimeoutError') return `timed out after ${timeoutMs / 1000} s`;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return `connection failed: ${cause?.code ?? cause?.message ?? (error as Error).message}`;
}

/** What a receiver's answer means for the delivery: landed, stop, or try again (after its Retry-After). */
function classifyAnswer(statusCode: number, headers: Headers, durationMs: number): AttemptResult {
  const answered = { statusCode, durationMs, retryAfterMs: null };
  if (statusCode >= 200 && statusCode < 300) return { ...answered, outcome: 'delivered', error: null };
  if (statusCode === 410) {
    return { ...answered, outcome: 'gone', error: 'HTTP 410: the receiver asked not to be sent this again' };
  }
  const redirect =
    statusCode >= 300 && statusCode < 400
      ? ` redirect to ${headers.get('location') ?? '(no location)'} not followed`
      : '';
  const retryAfterMs = parseRetryAfter(headers.get('retry-after'));
  return { ...answered, outcome: 'failed', error: `HTTP ${statusCode}${redirect}`, retryAfterMs };
}

export async function sendWebhook(request: WebhookRequest): Promise<AttemptResult> {
  const timeoutMs = request.timeoutMs ?? webhookTimeoutMs;
  let target: URL;
  try {
    target = new URL(request.url);
  } catch {
    return refused('not a valid URL');
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return refused('not an http(s) URL');
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const response = await fetch(target, {
      method: 'POST',
      // A redirect is a failure: following it would send the signed body somewhere the caller never named.
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
      dispatcher: outboundDispatcher(target, request.allowPrivate),
      headers: {
        'content-type': 'application/json',
        'user-agent': 'generation-gateway-webhooks/1',
        ...signatureHeaders(request.messageId, request.secret, request.body, new Date()),
      },
      body: request.body,
    });
    // The answer's body is not ours to read; dropping it frees the connection.
    await response.body?.cancel().catch(() => undefined);
    return classifyAnswer(response.status, response.headers, elapsed());
  } catch (error) {
    const cause = error instanceof PrivateAddressError ? error : (error as { cause?: unknown }).cause;
    if (cause instanceof PrivateAddressError)
      return refused(`${cause.message}; set ALLOW_PRIVATE_WEBHOOK_URLS=true to allow it`);
    return {
      outcome: 'failed',
      statusCode: null,
      error: networkError(error, timeoutMs),
      durationMs: elapsed(),
      retryAfterMs: null,
    };
  }
}
