// /files/<key>: a stored file, once the rules before this (delivered outputs only) let it through. The local
// directory is served as static files (ranges, ETags); a bucket's object is streamed through, with its type and
// length, so the links and their rules are the same whichever driver holds the files.
import { pipeline } from 'node:stream/promises';
import express, { type RequestHandler } from 'express';
import { linkedKey, type Storage } from '../../storage/storage.ts';

const cacheControl = 'public, max-age=604800, immutable';

export function storedFiles(storage: Storage): RequestHandler {
  if (storage.root)
    return express.static(storage.root, { index: false, immutable: true, maxAge: '7d', dotfiles: 'deny' });
  return async (req, res, next) => {
    const key = linkedKey(req.path.slice(1));
    const object = key && !key.split('/').some((segment) => segment.startsWith('.')) ? await storage.open(key) : null;
    if (!object) return next();
    res.set({
      'Cache-Control': cacheControl,
      ...(object.contentType ? { 'Content-Type': object.contentType } : {}),
      ...(object.contentLength !== undefined ? { 'Content-Length': String(object.contentLength) } : {}),
      ...(object.etag ? { ETag: object.etag } : {}),
    });
    if (req.method === 'HEAD') return void (object.body.destroy(), res.end());
    await pipeline(object.body, res);
  };
}
