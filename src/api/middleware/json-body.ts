import express, { type RequestHandler } from 'express';
import { hasBody } from '../endpoint.ts';
import { ApiError } from '../errors.ts';

const jsonTypes = ['application/json', 'application/*+json'];

/**
 * Bodies are JSON only: another content type is 415, not a validation error. A path whose endpoint reads its own body
 * is left alone whatever the method (another method is then 405, as anywhere).
 */
const requireJsonContentType =
  (rawBodyPaths: string[]): RequestHandler =>
  (req, _res, next) => {
    if (hasBody(req.headers) && !rawBodyPaths.includes(req.path) && !req.is(jsonTypes)) {
      throw new ApiError(
        'unsupported_media_type',
        `Content-Type must be application/json, got ${req.headers['content-type'] ?? 'none'}.`,
      );
    }
    next();
  };

export function jsonBody(limit: string, rawBodyPaths: string[] = []): RequestHandler[] {
  return [requireJsonContentType(rawBodyPaths), express.json({ limit, type: jsonTypes })];
}
