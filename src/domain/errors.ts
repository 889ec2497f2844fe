// Refusals the services raise: each carries its API error code and what the answer holds besides the message, so the
// API's error middleware translates any of them in one line. Their messages are caller-safe.
import type { ErrorCode } from './error-codes.ts';
import { usdNumber } from './money.ts';

export interface DomainErrorExtras {
  /** Fields of the error body besides `error` and `message` (e.g. insufficient_balance's cost). */
  details?: Record<string, unknown>;
  /** Response headers that belong to the refusal (e.g. Retry-After). */
  headers?: Record<string, string>;
}

/** A refusal the caller is answered with: its stable code, a caller-safe message, extra body fields and headers. */
export class DomainError extends Error {
  override name = 'DomainError';
  readonly details: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    message: string,
    { details = {}, headers = {} }: DomainErrorExtras = {},
  ) {
    super(message);
    this.details = details;
    this.headers = headers;
  }

  /** The message as the API answers it; a refusal also read elsewhere (genctl, replays) words it here. */
  get callerMessage(): string {
    return this.message;
  }
}

/** Nothing the caller may see by that id: someone else's resource is not found either. */
export class NotFoundError extends DomainError {
  override name = 'NotFoundError';
  constructor(message: string) {
    super('not_found', message);
  }
}

/** A task that has ended already (completed, or failed otherwise): it can no longer be cancelled. */
export class TaskEndedError extends DomainError {
  override name = 'TaskEndedError';
  constructor(
    readonly taskId: string,
    readonly status: string,
  ) {
    super(
      'conflict',
      `Generation ${taskId} has already ${status}: only a queued or processing task can be cancelled.`,
      {
        details: { status },
      },
    );
  }
}

/** An Idempotency-Key sent again with a different request, or by a key that may not see the task it names. */
export class IdempotencyKeyReusedError extends DomainError {
  override name = 'IdempotencyKeyReusedError';
  constructor(message = 'This Idempotency-Key was already used with a different request.') {
    super('idempotency_key_reused', message);
  }
}

/** A dependency could not do its part; nothing was charged and the caller may retry. */
export class ServiceUnavailableError extends DomainError {
  override name = 'ServiceUnavailableError';
  constructor(message: string) {
    // An outage is short or an operator's: a client may try again after a few seconds.
    super('service_unavailable', message, { headers: { 'Retry-After': '5' } });
  }
}

/** A message that claims to come from an upstream but whose signature is missing, invalid or too old. */
export class InvalidSignatureError extends DomainError {
  override name = 'InvalidSignatureError';
  constructor(message: string) {
    super('invalid_signature', message);
  }
}

/** A request field the domain refuses (beyond its shape, which the API's schemas check). */
export class FieldError extends DomainError {
  override name = 'FieldError';
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super('validation_error', `${field}: ${problem}`);
  }

  // Replay details and genctl show the bare problem; an API caller is told it is the body's.
  override get callerMessage(): string {
    return `Invalid body: ${this.message}`;
  }
}

export type DepositRefusal = Extract<ErrorCode, `deposit_${string}`>;

/** A transaction that is not (or no longer) a deposit the caller can be credited for. */
export class DepositRefusedError extends DomainError {
  override name = 'DepositRefusedError';
  declare readonly code: DepositRefusal;
  constructor(code: DepositRefusal, message: string) {
    super(code, message);
  }
}

/** The request must be paid with x402: what it costs and the payment requirements a client signs for. */
export class PaymentRequiredError extends DomainError {
  override name = 'PaymentRequiredError';
  constructor(
    message: string,
    readonly costMicros: bigint,
    /** The x402 PaymentRequired object (x402Version, resource, accepts). */
    readonly requirements: object,
    /** The same, encoded for the PAYMENT-REQUIRED header. */
    readonly header: string,
    /** What x402 v1 clients read at the body's top level (x402Version, accepts), beside the spec's fields. */
    readonly v1: Record<string, unknown> = {},
  ) {
    // A payer without an account has no balance to draw on: balance_available is 0.
    super('payment_required', message, {
      details: { ...v1, cost: usdNumber(costMicros), balance_available: 0, requirements },
      headers: { 'PAYMENT-REQUIRED': header },
    });
  }
}

/** An x402 payment presented again for a different request: one authorization pays for one task. */
export class PaymentReusedError extends DomainError {
  override name = 'PaymentReusedError';
  constructor() {
    super('conflict', 'This x402 payment was already used for a different request; sign a new one.');
  }
}

/** Too much in flight for this caller now; retry after the given number of seconds. */
export class TooManyTasksError extends DomainError {
  override name = 'TooManyTasksError';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('rate_limited', message, { headers: { 'Retry-After': String(retryAfterSeconds) } });
  }
}

/** A completed task's outputs past their retention (OUTPUT_RETENTION_DAYS): deleted, no longer served (410). */
export class OutputsExpiredError extends DomainError {
  override name = 'OutputsExpiredError';
  constructor(
    readonly expiredAt: Date,
    retentionDays: number,
  ) {
    // Kept forever now, yet deleted under an earlier setting: the date is when they went.
    const when = expiredAt.toISOString();
    super(
      'output_expired',
      retentionDays > 0
        ? `The outputs of this task expired on ${when} and were deleted (outputs are kept ${retentionDays} days after their task completes).`
        : `The outputs of this task were deleted on ${when}.`,
    );
  }
}

/** An upload that would take the account's live uploads past its quota (UPLOAD_QUOTA_BYTES). */
export class UploadQuotaError extends DomainError {
  override name = 'UploadQuotaError';
  constructor(
    readonly quotaBytes: number,
    readonly usedBytes: bigint,
  ) {
    super(
      'upload_quota_exceeded',
      `This upload would exceed the account's upload quota of ${quotaBytes} bytes (${usedBytes} in use); delete uploads or wait until they expire.`,
    );
  }
}
