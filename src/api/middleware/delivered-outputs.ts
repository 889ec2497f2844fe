// Output files are served only once their task is completed: an x402 task's id is known to its payer before the
// payment settles, so its files stay private until then — and for good when the payment never settles.
import type { RequestHandler } from 'express';
import type { PrismaClient } from '../../db/prisma.ts';
import { isDelivered } from '../../generations/tasks.ts';
import { ApiError } from '../errors.ts';

export function deliveredOutputsOnly(prisma: PrismaClient): RequestHandler {
  return async (req, _res, next) => {
    const taskId = decodeURIComponent(req.path.split('/')[1] ?? '');
    if (await isDelivered(prisma, taskId)) return next();
    throw new ApiError('not_found', `No file ${req.baseUrl}${req.path}.`);
  };
}
