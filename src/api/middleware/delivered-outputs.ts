// Output files are served only once their task is completed: an x402 task's id is known to its payer before the
// payment settles, so its files stay private until then — and for good when the payment never settles. Past their
// retention they are gone: 410 `output_expired`, whether or not the sweep has deleted them yet.
import type { RequestHandler, Response } from 'express';
import type { PrismaClient } from '../../db/prisma.ts';
import { isDelivered, type OutputRetention } from '../../generations/output-retention.ts';
import { linkedKey } from '../../storage/storage.ts';
import { ApiError } from '../errors.ts';

/**
 * Lets through a link to a delivered output, `<task id>/<name>`, its key decoded and checked once here: what is
 * served is that same key (`deliveredKey`), never the path read again, so no encoding can name another object.
 */
export function deliveredOutputsOnly(prisma: PrismaClient, retention: OutputRetention): RequestHandler {
  return async (req, res, next) => {
    const key = linkedKey(req.path.slice(1));
    const [taskId, ...name] = key?.split('/') ?? [];
    if (key && taskId && name.length > 0 && (await isDelivered(prisma, taskId, retention))) {
      res.locals.deliveredKey = key;
      return next();
    }
    noFile(req, res, next);
  };
}

/** The key `deliveredOutputsOnly` let through for this request. */
export function deliveredKey(res: Response): string {
  const key: unknown = res.locals.deliveredKey;
  if (typeof key !== 'string') throw new Error('/files served without deliveredOutputsOnly before it');
  return key;
}

/** After the stored files: a name that is not there (or that names no key) is answered as any other. */
export const noFile: RequestHandler = (req) => {
  throw new ApiError('not_found', `No file ${req.baseUrl}${req.path}.`);
};
