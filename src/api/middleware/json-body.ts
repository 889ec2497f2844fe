import express, { type RequestHandler } from 'express';
import { hasBody } from '../endpoint.ts';
import { ApiError } from '../errors.ts';

const jsonTypes = ['application/json', 'application/*+json'];

/** Bodies are JSON only (but where an endpoint reads its own): another content type is 415, not a validation error. */
const requireJsonContentType =
  (rawBodyRoutes: { method: string; path: string }[]): RequestHandler =>
  (req, _res, next) => {
    const raw = rawBodyRoutes.some((route) => route.method === req.method && route.path === req.path);
    if (hasBody(req) && !raw && !req.is(jsonTypes)) {
      throw new ApiError(
        'unsupported_media_type',
        `Content-Type must be application/json, got ${req.headers['content-type'] ?? 'none'}.`,
      );
    }
    next();
  };

export function jsonBody(limit: string, rawBodyRoutes: { method: string; path: string }[] = []): RequestHandler[] {
  return [requireJsonContentType(rawBodyRoutes), express.json({ limit, type: jsonTypes })];
}
