// The API's stable snake_case error codes: the domain's refusals name theirs, the API gives each its status and
// documents it (src/api/errors.ts), so this vocabulary sits at the bottom where both can reach it.
export const errorCodeNames = [
  'validation_error',
  'invalid_json',
  'invalid_webhook_url',
  'unauthorized',
  'invalid_signature',
  'insufficient_balance',
  'payment_required',
  'forbidden',
  'not_found',
  'method_not_allowed',
  'output_expired',
  'deposit_not_found',
  'deposit_reverted',
  'deposit_wrong_recipient',
  'deposit_wrong_token',
  'deposit_already_credited',
  'idempotency_key_reused',
  'conflict',
  'payload_too_large',
  'upload_quota_exceeded',
  'unsupported_media_type',
  'range_not_satisfiable',
  'registration_capped',
  'rate_limited',
  'internal_error',
  'not_implemented',
  'service_unavailable',
] as const;

export type ErrorCode = (typeof errorCodeNames)[number];
