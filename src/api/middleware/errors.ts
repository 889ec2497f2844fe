// Translates anything thrown into the { error, message } envelope, in this one place: the API's own errors, the
// domain's refusals, the database's and the body parser's. Stack traces go to the log, never out.
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { DomainError, ServiceUnavailableError } from '../../domain/errors.ts';
import { isDatabaseUnreachable } from '../../db/unreachable.ts';
import { Prisma } from '../../generated/prisma/client.ts';
import { isTemporalUnreachable } from '../../use-cases/temporal/unreachable.ts';
import { recordErrorCode } from '../../metrics/http-metrics.ts';
import { ApiError } from '../errors.ts';
import { answeredAtShutdown } from '../shutdown-gate.ts';
import { rangeNotSatisfiable } from './byte-range.ts';

const translate = (error: DomainError) => new ApiError(error.code, error.callerMessage, error.details, error.headers);

// A dependency that is down is answered as the domain's own outage is (503, Retry-After).
const unavailable = (message: string) => translate(new ServiceUnavailableError(message));

function fromDomainError(error: unknown): ApiError | null {
  if (error instanceof DomainError) return translate(error);
  if (isDatabaseUnreachable(error))
    return unavailable('The database is unreachable; nothing was changed. Retry shortly.');
  if (isTemporalUnreachable(error)) return unavailable('Temporal is unreachable; nothing was started. Retry shortly.');
  if (error instanceof Prisma.PrismaClientKnownRequestError) {
    if (error.code === 'P2025') return new ApiError('not_found', 'No such resource.');
    if (error.code === 'P2002') return new ApiError('conflict', 'A resource with these values exists already.');
  }
  return null;
}

/** body-parser marks its errors with a `type`; other client errors (a malformed URL, a bad gzip body) carry a 4xx status. */
function fromClientError(error: {
  type?: string;
  limit?: number;
  status?: number;
  headers?: Record<string, string>;
}): ApiError | null {
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
      // express.static's answer to a Range outside a local file.
      if (error.status === 416) return rangeNotSatisfiable(error.headers?.['Content-Range'] ?? 'bytes */*');
      if (error.status !== undefined && error.status >= 400 && error.status < 500) {
        return new ApiError('validation_error', 'The request is malformed (its URL or body could not be decoded).');
      }
      return null;
  }
}

/** The answer a thrown error gets when it is one we know (ours, the domain's, a dependency down, a bad request). */
export function knownApiError(error: unknown): ApiError | null {
  return error instanceof ApiError ? error : (fromDomainError(error) ?? fromClientError(error ?? {}));
}

export const notFound: RequestHandler = (req) => {
  throw new ApiError('not_found', `No route for ${req.method} ${req.path}.`);
};

export const errorHandler: ErrorRequestHandler = (error, req, res, _next) => {
  // Answered 503 at shutdown while it ran: what it met since (the database stopping, its own late answer) is moot.
  if (answeredAtShutdown(res)) {
    req.log.debug({ err: error }, 'request abandoned at shutdown');
    return;
  }
  const known = knownApiError(error);
  const apiError =
    known ??
    new ApiError(
      'internal_error',
      `An internal error occurred; quote request id ${String(res.getHeader('X-Request-Id'))} when reporting it.`,
    );
  if (!known) req.log.error({ err: error }, 'unhandled error');
  else if (apiError.code === 'service_unavailable' && error !== apiError)
    req.log.warn({ err: error }, 'dependency down');
  else if (error instanceof Prisma.PrismaClientKnownRequestError) req.log.warn({ err: error }, 'database refusal');
  if (res.headersSent) return;
  recordErrorCode(res, apiError.code);
  // JSON even where a file's own type was set before the failure (a download's).
  res.status(apiError.status).type('json').set(apiError.headers).json(apiError.toBody());
};
