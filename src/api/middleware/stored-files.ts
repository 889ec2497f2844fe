// /files/<key>: a stored file, once the rules before this (delivered outputs only) let it through. The local
// directory is served as static files; a bucket's object is redirected to by a presigned link when
// STORAGE_PRESIGNED_URLS is on, else streamed through. Either way ranges and ETags work as express.static's do.
import { pipeline } from 'node:stream/promises';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { ObjectHead } from '../../storage/object-store.ts';
import { linkedKey, type Storage } from '../../storage/storage.ts';
import { requestedRange } from './byte-range.ts';

const cacheControl = 'public, max-age=604800, immutable';

export function storedFiles(storage: Storage): RequestHandler {
  if (storage.root)
    return express.static(storage.root, { index: false, immutable: true, maxAge: '7d', dotfiles: 'deny' });
  return async (req, res, next) => {
    const key = linkedKey(req.path.slice(1));
    // Checked first, so a missing object is our 404, not the store's.
    const head = key && !key.split('/').some((segment) => segment.startsWith('.')) ? await storage.head(key) : null;
    if (!key || !head) return next();
    const presigned = await storage.presignedUrl(key);
    if (presigned) {
      // A cached redirect must not outlive the link's signature.
      res.set('Cache-Control', `private, max-age=${Math.floor(presigned.expiresInSeconds / 2)}`);
      return res.redirect(302, presigned.url);
    }
    await streamThrough(storage, key, head, req, res, next);
  };
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
