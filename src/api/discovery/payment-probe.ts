// x402's Bazaar lists a paid endpoint only when its paymentless probe (no key, no payment, often no body) is answered
// 402 with the discovery metadata; a 400 or 415 drops it. So a call without a key or a payment whose input is refused
// is answered the 402 of an example request instead, its message naming what was refused; nothing is charged either way.
import { PaymentRequiredError } from '../../domain/errors.ts';
import { formatUsd } from '../../domain/money.ts';
import type { ApiContext, PaymentProbe } from '../endpoint.ts';
import type { ErrorCode } from '../errors.ts';
import { knownApiError } from '../middleware/errors.ts';

/** The refusals of a request's shape: its body invalid, not JSON, or of another content type. */
const inputRefusals = new Set<ErrorCode>(['validation_error', 'invalid_json', 'unsupported_media_type']);

/** The refusal, then what the 402 is instead: the example's price, which the caller is not asked to pay for its own. */
function probeMessage(refusal: string, example: PaymentRequiredError): string {
  const resource = (example.requirements as { resource?: { description?: string } }).resource;
  const refused = /[.!?]$/.test(refusal) ? refusal : `${refusal}.`;
  return (
    `${refused} The price ($${formatUsd(example.costMicros)}) and payment requirements in this answer are those of ` +
    `an example request (${resource?.description ?? 'requirements.resource'}), whose body is in ` +
    'requirements.extensions.bazaar.info.input.body: send a valid body to be told its own price, or an API key.'
  );
}

/**
 * The probe of an endpoint whose keyless handler refuses an unpaid request with its 402: `example` is the request it
 * prices instead (none: the refusal stands).
 */
export function examplePaymentProbe(example: (ctx: ApiContext) => unknown): PaymentProbe {
  return async (refusal, { endpoint, ctx, call }) => {
    const refused = knownApiError(refusal);
    // With a payment the caller means to pay for this very request: its refusal stands (400), nothing is charged.
    if (
      !refused ||
      !inputRefusals.has(refused.code) ||
      ctx.payments.carriesPayment(call.headers) ||
      !endpoint.handleUnpaid
    )
      throw refusal;
    const body = example(ctx);
    if (body === undefined) throw refusal;
    // Without a payment the handler can only refuse: its 402 is the example's price and requirements.
    const unpaid = {
      body,
      query: {},
      params: {},
      headers: {},
      ctx,
      call,
      base: call.base,
    };
    const asked = await Promise.resolve(endpoint.handleUnpaid(unpaid)).then(
      () => new Error(`${endpoint.operationId} admitted its payment probe's example without a payment`),
      (error: unknown) => error,
    );
    if (!(asked instanceof PaymentRequiredError)) throw asked;
    const message = probeMessage(refused.message, asked);
    throw new PaymentRequiredError(message, asked.costMicros, asked.requirements, asked.header, asked.v1);
  };
}
