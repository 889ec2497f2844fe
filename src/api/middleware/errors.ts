// Translates anything thrown into the { error, message } envelope, in this one place: the API's own errors, the
// domain's refusals, the database's and the body parser's. Stack traces go to the log, never out.
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ModelRequestError } from '../../catalog/resolve.ts';
import {
  DepositRefusedError,
  FieldError,
  IdempotencyKeyReusedError,
  InvalidSignatureError,
  PaymentRequiredError,
  PaymentReusedError,
  NotFoundError,
  ServiceUnavailableError,
  TaskEndedError,
  TooManyTasksError,
  UploadQuotaError,
} from '../../domain/errors.ts';
import { isDatabaseUnreachable } from '../../db/unreachable.ts';
import { Prisma } from '../../generated/prisma/client.ts';
import { formatUsd, usdNumber } from '../../domain/money.ts';
import { InsufficientFundsError } from '../../payments/ledger.ts';
import { RegistrationCappedError } from '../../accounts/registration.ts';
import { isTemporalUnreachable } from '../../orchestration/temporal/unreachable.ts';
import { recordErrorCode } from '../../metrics/http-metrics.ts';
import { ApiError } from '../errors.ts';
import { answeredAtShutdown } from '../shutdown-gate.ts';

// An outage is short or an operator's: a client may try again after a few seconds.
const unavailable = (message: string) => new ApiError('service_unavailable', message, {}, { 'Retry-After': '5' });

function fromDomainError(error: unknown): ApiError | null {
  if (error instanceof ModelRequestError) return new ApiError('validation_error', `Invalid body: ${error.message}`);
  if (error instanceof InsufficientFundsError) {
    const [cost, available] = [error.required, error.available];
    const message = `This generation costs $${formatUsd(cost)}; the available balance is $${formatUsd(available)}.`;
    return new ApiError('insufficient_balance', message, {
      cost: usdNumber(cost),
      balance_available: usdNumber(available),
    });
  }
  if (error instanceof IdempotencyKeyReusedError) return new ApiError('idempotency_key_reused', error.message);
  if (error instanceof NotFoundError) return new ApiError('not_found', error.message);
  if (error instanceof TaskEndedError) return new ApiError('conflict', error.message, { status: error.status });
  if (error instanceof FieldError) return new ApiError('validation_error', `Invalid body: ${error.message}`);
  if (error instanceof UploadQuotaError) return new ApiError('upload_quota_exceeded', error.message);
  if (error instanceof DepositRefusedError) return new ApiError(error.code, error.message);
  if (error instanceof InvalidSignatureError) return new ApiError('invalid_signature', error.message);
  if (error instanceof PaymentReusedError) return new ApiError('conflict', error.message);
  if (error instanceof TooManyTasksError)
    return new ApiError('rate_limited', error.message, {}, { 'Retry-After': String(error.retryAfterSeconds) });
  if (error instanceof PaymentRequiredError) {
    const extra = { cost: usdNumber(error.costMicros), requirements: error.requirements };
    return new ApiError('payment_required', error.message, extra, { 'PAYMENT-REQUIRED': error.header });
  }
  if (error instanceof ServiceUnavailableError) return unavailable(error.message);
  if (isDatabaseUnreachable(error))
    return unavailable('The database is unreachable; nothing was changed. Retry shortly.');
  if (isTemporalUnreachable(error)) return unavailable('Temporal is unreachable; nothing was started. Retry shortly.');
  if (error instanceof RegistrationCappedError) {
    return new ApiError('registration_capped', `Registration capped: ${error.message}. Try again later.`);
  }
  if (error instanceof Prisma.PrismaClientKnownRequestError) {
    if (error.code === 'P2025') return new ApiError('not_found', 'No such resource.');
    if (error.code === 'P2002') return new ApiError('conflict', 'A resource with these values exists already.');
  }
  return null;
}

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
  // Answered 503 at shutdown while it ran: what it met since (the database stopping, its own late answer) is moot.
  if (answeredAtShutdown(res)) {
    req.log.debug({ err: error }, 'request abandoned at shutdown');
    return;
  }
  const known = error instanceof ApiError ? error : (fromDomainError(error) ?? fromClientError(error ?? {}));
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
  res.status(apiError.status).set(apiError.headers).json(apiError.toBody());
};
