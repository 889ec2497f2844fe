// Refusals in OpenAI's shape (`{ error: { message, type, param, code } }`) with the status the REST API gives them, so
// the `openai` SDKs raise their typed errors (BadRequestError, AuthenticationError, RateLimitError, …). The code is
// the gateway's own (`insufficient_balance`, `budget_exceeded`, …); `param` names the OpenAI field where a field
// of the gateway's request made from it failed.
import type { ErrorRequestHandler } from 'express';
import { ApiError } from '../errors.ts';
import { knownApiError } from '../middleware/errors.ts';

/** The error `type` OpenAI's API gives each status. */
function typeOf(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status === 402) return 'insufficient_quota';
  return status >= 500 ? 'server_error' : 'invalid_request_error';
}

/** The OpenAI field a gateway field was made from, by the gateway's name. */
export type ParamNames = Record<string, string>;

/** The first field a validation message names (`Invalid body: prompt: …`), as the caller named it. */
function paramOf(error: ApiError, names: ParamNames): string | null {
  if (error.code !== 'validation_error') return null;
  const field = /^Invalid \w+: ([\w.[\]]+):/.exec(error.message)?.[1];
  if (!field) return null;
  return names[field] ?? field;
}

export function openAiErrorBody(error: ApiError, names: ParamNames = {}) {
  // A model the catalog does not have is OpenAI's `model_not_found` (404), which clients tell from a bad request.
  if (isUnknownModel(error))
    return { error: { message: error.message, type: typeOf(404), param: 'model', code: 'model_not_found' } };
  return {
    error: { message: error.message, type: typeOf(error.status), param: paramOf(error, names), code: error.code },
  };
}

const isUnknownModel = (error: ApiError) =>
  error.code === 'validation_error' && /^Invalid body: (input\.)?model: unknown model/.test(error.message);

/** The router's last handler: any refusal in OpenAI's shape, and ours as a 500 naming the request id. */
export const openAiErrors: ErrorRequestHandler = (error, req, res, _next) => {
  const known = knownApiError(error);
  const apiError =
    known ??
    new ApiError(
      'internal_error',
      `An internal error occurred; quote request id ${String(res.getHeader('X-Request-Id'))} when reporting it.`,
    );
  if (!known) req.log.error({ err: error }, 'unhandled error');
  if (res.headersSent) return;
  const names = (res.locals.openAiParams as ParamNames | undefined) ?? {};
  const status = isUnknownModel(apiError) ? 404 : apiError.status;
  res.status(status).type('json').set(apiError.headers).json(openAiErrorBody(apiError, names));
};
