// POST /callbacks/{provider}/{task id}: fal and Replicate announce a finished job. Trusted only once its signature
// checks out, and even then it only wakes the task's workflow, which asks the upstream itself.
import { WorkflowNotFoundError } from '@temporalio/client';
import express, { Router } from 'express';
import type { ProviderSlug } from '../catalog/catalog.schema.ts';
import { taskIdPattern } from '../domain/values.ts';
import type { Logger } from '../logger.ts';
import type { Providers } from '../providers/registry.ts';
import type { TemporalDeps } from '../temporal/generations.ts';
import { upstreamCallbackSignal } from '../../workflows/generation.workflow.ts';
import { ApiError } from './errors.ts';
import { createSeenMessages } from './seen-messages.ts';

const signatureHeaders = ['x-fal-webhook-signature', 'webhook-signature'];

export function upstreamCallbacksRouter(deps: {
  providers: Providers;
  temporal: TemporalDeps;
  logger: Logger;
}): Router {
  const router = Router();
  // Longer than the signatures' five-minute validity either side.
  const seenCallbacks = createSeenMessages({ windowMs: 11 * 60_000, maxEntries: 50_000 });
  // The signature covers the exact bytes, so the body stays raw. Results are links, never media: 1 MB is ample.
  router.post('/:provider/:taskId', express.raw({ type: () => true, limit: '1mb' }), async (req, res) => {
    const { provider, taskId } = req.params as { provider: string; taskId: string };
    const jobs = deps.providers.jobsOf(provider as ProviderSlug);
    if (!jobs || !taskIdPattern.test(taskId))
      throw new ApiError('not_found', `No callback route for ${provider}/${taskId}.`);
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const jobId = await jobs.verifyCallback({ headers: req.headers, body }).catch((error: unknown) => {
      // An unreadable body or unreachable keys: the callback is not trusted, and the upstream's polling remains.
      deps.logger.warn({ err: error, provider, taskId }, 'upstream callback could not be verified');
      return undefined;
    });
    if (!jobId) throw new ApiError('invalid_signature', 'The callback signature is missing, invalid or too old.');
    const signature = signatureHeaders.map((name) => String(req.headers[name] ?? '')).join(' ');
    if (!seenCallbacks.firstSighting(provider, taskId, signature, body)) {
      res.json({ received: true });
      return;
    }
    try {
      await deps.temporal.client.workflow.getHandle(taskId).signal(upstreamCallbackSignal, { jobId });
    } catch (error) {
      // The task ended already (polling found the result first): nothing left to wake, and nothing to retry.
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      deps.logger.debug({ taskId, provider }, 'upstream callback for a task that has ended');
    }
    res.json({ received: true });
  });
  return router;
}
