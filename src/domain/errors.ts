// Refusals the services raise and the API's error middleware translates; their messages are caller-safe.

/** Nothing the caller may see by that id: someone else's resource is not found either. */
export class NotFoundError extends Error {
  override name = 'NotFoundError';
}

/** A task that has ended already (completed, or failed otherwise): it can no longer be cancelled. */
export class TaskEndedError extends Error {
  override name = 'TaskEndedError';
  constructor(
    readonly taskId: string,
    readonly status: string,
  ) {
    super(`Generation ${taskId} has already ${status}: only a queued or processing task can be cancelled.`);
  }
}

/** An Idempotency-Key sent again with a different request. */
export class IdempotencyKeyReusedError extends Error {
  override name = 'IdempotencyKeyReusedError';
  constructor() {
    super('This Idempotency-Key was already used with a different request.');
  }
}

/** A dependency could not do its part; nothing was charged and the caller may retry. */
export class ServiceUnavailableError extends Error {
  override name = 'ServiceUnavailableError';
}

/** A message that claims to come from an upstream but whose signature is missing, invalid or too old. */
export class InvalidSignatureError extends Error {
  override name = 'InvalidSignatureError';
}

/** A request field the domain refuses (beyond its shape, which the API's schemas check). */
export class FieldError extends Error {
  override name = 'FieldError';
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super(`${field}: ${problem}`);
  }
}

export const depositRefusals = [
  'deposit_not_found',
  'deposit_reverted',
  'deposit_wrong_recipient',
  'deposit_wrong_token',
  'deposit_already_credited',
] as const;
export type DepositRefusal = (typeof depositRefusals)[number];

/** A transaction that is not (or no longer) a deposit the caller can be credited for. */
export class DepositRefusedError extends Error {
  override name = 'DepositRefusedError';
  constructor(
    readonly code: DepositRefusal,
    message: string,
  ) {
    super(message);
  }
}

/** The request must be paid with x402: what it costs and the payment requirements a client signs for. */
export class PaymentRequiredError extends Error {
  override name = 'PaymentRequiredError';
  constructor(
    message: string,
    readonly costMicros: bigint,
    /** The x402 PaymentRequired object (x402Version, resource, accepts). */
    readonly requirements: object,
    /** The same, encoded for the PAYMENT-REQUIRED header. */
    readonly header: string,
  ) {
    super(message);
  }
}

/** An x402 payment presented again for a different request: one authorization pays for one task. */
export class PaymentReusedError extends Error {
  override name = 'PaymentReusedError';
  constructor() {
    super('This x402 payment was already used for a different request; sign a new one.');
  }
}

/** Too much in flight for this caller now; retry after the given number of seconds. */
export class TooManyTasksError extends Error {
  override name = 'TooManyTasksError';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** An upload that would take the account's live uploads past its quota (UPLOAD_QUOTA_BYTES). */
export class UploadQuotaError extends Error {
  override name = 'UploadQuotaError';
  constructor(
    readonly quotaBytes: number,
    readonly usedBytes: bigint,
  ) {
    super(
      `This upload would exceed the account's upload quota of ${quotaBytes} bytes (${usedBytes} in use); delete uploads or wait until they expire.`,
    );
  }
}
