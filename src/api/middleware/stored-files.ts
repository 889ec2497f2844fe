// /files/<key>: a stored file, by the key checked before this (linkedFileKey) and let through (delivered outputs only). A
// local file is sent as express.static sends one; a bucket's object is redirected to by a presigned link when
// STORAGE_PRESIGNED_URLS is on, else streamed through. Either way ranges and ETags work as express.static's do.
import { pipeline } from 'node:stream/promises';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { ObjectHead } from '../../storage/object-store.ts';
import type { Storage } from '../../storage/storage.ts';
import { requestedRange } from './byte-range.ts';
import { fileKey } from './delivered-outputs.ts';

const cacheControl = 'public, max-age=604800, immutable';

/**
 * Outputs share the console's origin: opened on their own they run nothing and reach nothing (a sandbox, no
 * sources but themselves, for an image or a player's document), and no browser sniffs them into another type.
 * Embedded as <img>, <audio> or <video> (the console's previews), a response's own CSP does not apply.
 */
export const storedFileContentSecurityPolicy =
  "sandbox allow-same-origin; default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'";

export const sandboxedFiles: RequestHandler = (_req, res, next) => {
  res.set({ 'Content-Security-Policy': storedFileContentSecurityPolicy, 'X-Content-Type-Options': 'nosniff' });
  next();
};

export function storedFiles(storage: Storage): RequestHandler {
  const root = storage.root;
  if (root) return (req, res, next) => sendLocalFile(root, fileKey(res), res, next);
  return async (req, res, next) => {
    const key = fileKey(res);
    // Checked first, so a missing object is our 404, not the store's.
    const head = await storage.head(key);
    if (!head) return next();
    const presigned = await storage.presignedUrl(key);
    if (presigned) {
      // A cached redirect must not outlive the link's signature.
      res.set('Cache-Control', `private, max-age=${Math.floor(presigned.expiresInSeconds / 2)}`);
      return res.redirect(302, presigned.url);
    }
    await streamThrough(storage, key, head, req, res, next);
  };
}

/** The file under `root` named by the checked key; a missing one falls through to our 404. */
function sendLocalFile(root: string, key: string, res: Response, next: NextFunction): void {
  res.sendFile(
    key,
    { root, dotfiles: 'deny', immutable: true, maxAge: '7d' },
    (error?: Error & { status?: number }) => {
      if (!error) return;
      // Missing, or a dot-file (denied): no file of ours.
      if (error.status === 404 || error.status === 403) return next();
      // A reader leaving mid-file is no error; anything else (416 included) goes to the error handler.
      if ((error as NodeJS.ErrnoException).code !== 'ECONNABORTED') next(error);
    },
  );
}

/** The object through the api: a 304 to a caller holding its ETag, else all of it or the one range asked for. */
async function streamThrough(
  storage: Storage,
  key: string,
  head: ObjectHead,
  req: Request,
  res: Response,
  next: NextFunction,
): Promise<void> {
  res.set({
    'Accept-Ranges': 'bytes',
    'Cache-Control': cacheControl,
    ...(head.contentType ? { 'Content-Type': head.contentType } : {}),
    ...(head.etag ? { ETag: head.etag } : {}),
  });
  if (req.fresh) return void res.status(304).end();
  const range = requestedRange(req, head);
  const object = req.method === 'HEAD' ? undefined : await storage.open(key, { range });
  // Deleted since its head was read: answered as any missing file.
  if (object === null) return next();
  if (range) res.status(206).set('Content-Range', `bytes ${range.start}-${range.end}/${head.contentLength}`);
  res.set('Content-Length', String(range ? range.end - range.start + 1 : head.contentLength));
  if (!object) return void res.end();
  await pipeline(object.body, res).catch((error: NodeJS.ErrnoException) => {
    // A reader leaving mid-file (a player seeking elsewhere) is no error.
    if (error.code !== 'ERR_STREAM_PREMATURE_CLOSE') throw error;
  });
}
