// Output files are served only once their task is completed: an x402 task's id is known to its payer before the
// payment settles, so its files stay private until then — and for good when the payment never settles. Past their
// retention they are gone: 410 `output_expired`, whether or not the sweep has deleted them yet.
import type { RequestHandler, Response } from 'express';
import type { PrismaClient } from '../../db/prisma.ts';
import { isDelivered, type OutputRetention } from '../../generations/output-retention.ts';
import { linkedKey } from '../../storage/storage.ts';
import { ApiError } from '../errors.ts';

/**
 * The key a /files/ link names, decoded and checked once here (`linkedKey`); every step after it (who may read it,
 * the store) reads that same key through `fileKey`, never the path again, so no encoding can name another object.
 */
export const linkedFileKey: RequestHandler = (req, res, next) => {
  const key = linkedKey(req.path.slice(1));
  if (!key) return noFile(req, res, next);
  res.locals.fileKey = key;
  next();
};

/** The key `linkedFileKey` checked for this request. */
export function fileKey(res: Response): string {
  const key: unknown = res.locals.fileKey;
  if (typeof key !== 'string') throw new Error('/files served without linkedFileKey before it');
  return key;
}

/** Lets through a delivered output, `<task id>/<name>` of a completed task; anything else is no file. */
export function deliveredOutputsOnly(prisma: PrismaClient, retention: OutputRetention): RequestHandler {
  return async (req, res, next) => {
    const [taskId, ...name] = fileKey(res).split('/');
    if (taskId && name.length > 0 && (await isDelivered(prisma, taskId, retention))) return next();
    noFile(req, res, next);
  };
}

/** After the stored files: a name that is not there (or that names no key) is answered as any other. */
export const noFile: RequestHandler = (req) => {
  throw new ApiError('not_found', `No file ${req.baseUrl}${req.path}.`);
};
