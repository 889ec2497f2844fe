import express, { type RequestHandler } from 'express';
import { hasBody } from '../endpoint.ts';
import { ApiError } from '../errors.ts';

const jsonTypes = ['application/json', 'application/*+json'];

/** Bodies are JSON only: another content type is 415, not a confusing validation error. */
const requireJsonContentType: RequestHandler = (req, _res, next) => {
  if (hasBody(req) && !req.is(jsonTypes)) {
    throw new ApiError(
      'unsupported_media_type',
      `Content-Type must be application/json, got ${req.headers['content-type'] ?? 'none'}.`,
    );
  }
  next();
};

export function jsonBody(limit: string): RequestHandler[] {
  return [requireJsonContentType, express.json({ limit, type: jsonTypes })];
}
