// One error envelope for the whole API ({ error, message }), one table from stable snake_case code to status.
import type { z } from 'zod';
import type { ErrorCode } from '../domain/error-codes.ts';

export type { ErrorCode };

export const errorCodes = {
  validation_error: { status: 400, description: 'The request failed validation; the message names the field.' },
  invalid_json: { status: 400, description: 'The body is not valid JSON.' },
  invalid_webhook_url: { status: 400, description: 'The webhook URL is not an http(s) URI.' },
  unauthorized: { status: 401, description: 'The API key is missing, malformed, unknown, expired or revoked.' },
  invalid_signature: {
    status: 401,
    description: 'An upstream callback whose signature is missing, invalid or too old.',
  },
  insufficient_balance: {
    status: 402,
    description: 'The available balance does not cover the cost (body: cost, balance_available).',
  },
  payment_required: { status: 402, description: 'An x402 payment is required or does not cover the cost.' },
  forbidden: {
    status: 403,
    description:
      "The key is valid but may not do this: of the wrong kind for this endpoint, asking for more than it holds, or limited by a policy where the account's own settings are concerned.",
  },
  scope_required: { status: 403, description: 'The API key lacks the scope this endpoint needs (body: scope).' },
  budget_exceeded: {
    status: 403,
    description:
      "The request would take the API key's budget window past its limit (body: limit, spent, reserved, window, resets_at), or that of a key above it (no figures: they are its maker's).",
  },
  model_not_allowed: { status: 403, description: "The API key's policy does not allow this model (body: allowed)." },
  type_not_allowed: { status: 403, description: "The API key's policy does not allow this type (body: allowed)." },
  cost_limit_exceeded: {
    status: 403,
    description: "The request costs more than the API key's max_cost_per_task (body: cost, limit).",
  },
  not_found: { status: 404, description: 'No such route or resource.' },
  method_not_allowed: { status: 405, description: 'The route exists but not with this method (see the Allow header).' },
  output_expired: {
    status: 410,
    description:
      "A task's output file (`/files/…`) past OUTPUT_RETENTION_DAYS: deleted; the task's `outputs_expire_at` says when.",
  },
  deposit_not_found: {
    status: 400,
    description: 'No such transaction on that chain (or it left the chain in a reorganisation).',
  },
  deposit_reverted: { status: 400, description: 'The transaction reverted: it moved no funds.' },
  deposit_wrong_recipient: {
    status: 400,
    description: "The transaction sent no USDC to the caller's deposit address.",
  },
  deposit_wrong_token: { status: 400, description: "The transaction moved another token than the chain's USDC." },
  deposit_already_credited: { status: 400, description: 'The transaction was credited to another account.' },
  idempotency_key_reused: {
    status: 409,
    description:
      'This Idempotency-Key was used with a different request, or (to a key with a policy) by another API key.',
  },
  conflict: {
    status: 409,
    description:
      'The request conflicts with a resource that exists already, or with its state (a cancel of a task that has ended: body `status`).',
  },
  payload_too_large: { status: 413, description: 'The body exceeds the size limit.' },
  upload_quota_exceeded: {
    status: 413,
    description:
      "The upload would take the account's live uploads past its quota; delete some or wait until they expire.",
  },
  unsupported_media_type: { status: 415, description: 'The body is not application/json.' },
  range_not_satisfiable: {
    status: 416,
    description: 'A file download whose Range has no bytes in the file; Content-Range gives its size.',
  },
  registration_capped: {
    status: 429,
    description: 'Too many registrations from this client address; try again later.',
  },
  rate_limited: {
    status: 429,
    description:
      "Too many requests: the account's rate limit for this kind of call (see the RateLimit headers; Retry-After says when to try again), or an x402 payer's tasks in flight.",
  },
  internal_error: { status: 500, description: 'An unexpected error; the message carries the request id.' },
  not_implemented: { status: 501, description: 'The endpoint is specified but not available in this build yet.' },
  service_unavailable: { status: 503, description: 'A dependency (database, Temporal, the file store) is down.' },
} as const satisfies Record<ErrorCode, { status: number; description: string }>;

export interface ErrorBody {
  error: string;
  message: string;
  [extra: string]: unknown;
}

export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
    /** Response headers that belong to this error (e.g. PAYMENT-REQUIRED on a 402). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = errorCodes[code].status;
  }

  toBody(): ErrorBody {
    return { error: this.code, message: this.message, ...this.extra };
  }
}

type Issue = z.ZodError['issues'][number];

/**
 * A union (the two layouts of POST /generations) fails as a whole; its issues are those of the branch the request
 * got furthest into (the deepest shallowest path, then the fewest issues), so the message still names the field.
 */
function leafIssues(issue: Issue): Issue[] {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return [issue];
  const reach = (branch: Issue[]) => Math.min(...branch.map((inner) => inner.path.length));
  const [best] = [...issue.errors].sort((a, b) => reach(b) - reach(a) || a.length - b.length);
  return best!.flatMap((inner) => leafIssues({ ...inner, path: [...issue.path, ...inner.path] }));
}

/** `where` is the part of the request that failed (body, query, path); each issue names its field. */
export function validationError(
  error: z.ZodError,
  where: 'body' | 'query' | 'path' | 'header',
  code: ErrorCode = 'validation_error',
): ApiError {
  const problems = error.issues.flatMap(leafIssues).map((issue) => {
    const field = issue.path.length > 0 ? issue.path.join('.') : where;
    return `${field}: ${issue.message}`;
  });
  return new ApiError(code, `Invalid ${where}: ${problems.join('; ')}`);
}
