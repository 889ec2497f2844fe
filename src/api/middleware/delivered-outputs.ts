// Output files are served only once their task is completed: an x402 task's id is known to its payer before the
// payment settles, so its files stay private until then — and for good when the payment never settles. Past their
// retention they are gone: 410 `output_expired`, whether or not the sweep has deleted them yet.
import type { RequestHandler } from 'express';
import type { PrismaClient } from '../../db/prisma.ts';
import { isDelivered, type OutputRetention } from '../../generations/output-retention.ts';
import { ApiError } from '../errors.ts';

/** A path segment decoded, or null when its percent-encoding is malformed: it names no file. */
function decodedSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

export function deliveredOutputsOnly(prisma: PrismaClient, retention: OutputRetention): RequestHandler {
  return async (req, res, next) => {
    const taskId = decodedSegment(req.path.split('/')[1] ?? '');
    if (taskId !== null && (await isDelivered(prisma, taskId, retention))) return next();
    noFile(req, res, next);
  };
}

/** After the static files: a name that is not there (or whose encoding is malformed) is answered as any other. */
export const noFile: RequestHandler = (req) => {
  throw new ApiError('not_found', `No file ${req.baseUrl}${req.path}.`);
};
