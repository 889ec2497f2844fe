// A finished-job callback from fal or Replicate. Trusted only once its signature checks out, and even then it only
// wakes the task's workflow, which asks the upstream itself: the payload is never taken as the result.
import type { IncomingHttpHeaders } from 'node:http';
import { InvalidSignatureError, NotFoundError } from '../../domain/errors.ts';
import { taskIdPattern } from '../../domain/values.ts';
import type { Logger } from '../../infra/logger.ts';
import type { Providers } from '../../providers/registry.ts';
import type { TemporalDeps } from '../temporal/generation-workflows.ts';
import { signalUpstreamCallback } from '../temporal/upstream-callback-signal.ts';
import { createSeenMessages } from '../../providers/seen-messages.ts';

export interface UpstreamCallback {
  provider: string;
  taskId: string;
  headers: IncomingHttpHeaders;
  /** The exact bytes received: the signature covers them. */
  body: Buffer;
}

const signatureHeaders = ['x-fal-webhook-signature', 'webhook-signature'];

export function createUpstreamCallbackReceiver(deps: { providers: Providers; temporal: TemporalDeps; logger: Logger }) {
  // Longer than the signatures' five-minute validity either side.
  const seenCallbacks = createSeenMessages({ windowMs: 11 * 60_000, maxEntries: 50_000 });

  return async function receiveUpstreamCallback({ provider, taskId, headers, body }: UpstreamCallback): Promise<void> {
    const jobs = deps.providers.jobsOf(provider);
    if (!jobs || !taskIdPattern.test(taskId)) throw new NotFoundError(`No callback route for ${provider}/${taskId}.`);
    const jobId = await jobs.verifyCallback({ headers, body }).catch((error: unknown) => {
      // An unreadable body or unreachable keys: the callback is not trusted, and the upstream's polling remains.
      deps.logger.warn({ err: error, provider, taskId }, 'upstream callback could not be verified');
      return undefined;
    });
    if (!jobId) throw new InvalidSignatureError('The callback signature is missing, invalid or too old.');
    const signature = signatureHeaders.map((name) => String(headers[name] ?? '')).join(' ');
    if (!seenCallbacks.firstSighting(provider, taskId, signature, body)) return;
    // A task that has ended already (polling found the result first) has nothing left to wake.
    if (!(await signalUpstreamCallback(deps.temporal, taskId, jobId))) {
      deps.logger.debug({ taskId, provider }, 'upstream callback for a task that has ended');
    }
  };
}
