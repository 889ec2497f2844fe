// Translates anything thrown into the { error, message } envelope. Stack traces go to the log, never out.
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ApiError } from '../errors.ts';

/** body-parser marks its errors with a `type`; other client errors (a malformed URL, a bad gzip body) carry a 4xx status. */
function fromClientError(error: { type?: string; limit?: number; status?: number }): ApiError | null {
  switch (error.type) {
    case 'entity.parse.failed':
      return new ApiError('invalid_json', 'The request body is not valid JSON.');
    case 'entity.too.large':
      return new ApiError('payload_too_large', `The request body exceeds the limit of ${error.limit} bytes.`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError('unsupported_media_type', 'The body must be UTF-8 encoded JSON.');
    case 'request.aborted':
    case 'request.size.invalid':
      return new ApiError('validation_error', 'The request body was incomplete.');
    default:
      if (error.status === 413) return new ApiError('payload_too_large', 'The request body is too large.');
      if (error.status === 415) return new ApiError('unsupported_media_type', 'The body must be JSON.');
      if (error.status !== undefined && error.status >= 400 && error.status < 500) {
        return new ApiError('validation_error', 'The request is malformed (its URL or body could not be decoded).');
      }
      return null;
  }
}

export const notFound: RequestHandler = (req) => {
  throw new ApiError('not_found', `No route for ${req.method} ${req.path}.`);
};

export const errorHandler: ErrorRequestHandler = (error, req, res, _next) => {
  const known = error instanceof ApiError ? error : fromClientError(error ?? {});
  const apiError =
    known ??
    new ApiError(
      'internal_error',
      `An internal error occurred; quote request id ${String(res.getHeader('X-Request-Id'))} when reporting it.`,
    );
  if (!known) req.log.error({ err: error }, 'unhandled error');
  if (res.headersSent) return;
  res.status(apiError.status).json(apiError.toBody());
};
