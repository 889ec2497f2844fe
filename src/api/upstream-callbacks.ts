// POST /callbacks/{provider}/{task id}: where fal and Replicate announce a finished job. Not part of the public API.
import express, { Router } from 'express';
import type { Logger } from '../infra/logger.ts';
import type { Providers } from '../providers/registry.ts';
import { createUpstreamCallbackReceiver } from '../use-cases/generations/upstream-callbacks.ts';
import type { TemporalDeps } from '../use-cases/temporal/generation-workflows.ts';

export function upstreamCallbacksRouter(deps: {
  providers: Providers;
  temporal: TemporalDeps;
  logger: Logger;
}): Router {
  const router = Router();
  const receiveUpstreamCallback = createUpstreamCallbackReceiver(deps);
  // The signature covers the exact bytes, so the body stays raw. Results are links, never media: 1 MB is ample.
  router.post('/:provider/:taskId', express.raw({ type: () => true, limit: '1mb' }), async (req, res) => {
    const { provider, taskId } = req.params as { provider: string; taskId: string };
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    await receiveUpstreamCallback({ provider, taskId, headers: req.headers, body });
    res.json({ received: true });
  });
  return router;
}
