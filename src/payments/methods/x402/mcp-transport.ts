// x402 over MCP (x402's MCP transport): the payment rides in a tool call's `_meta["x402/payment"]` and its receipt in
// the result's `_meta["x402/payment-response"]`, moved here to and from the HTTP headers the endpoint reads and sets.
import { decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http';

/** The payment in a tool call's `_meta`, as the HTTP transport's header of its version (none: no payment). */
export function x402McpPaymentHeaders(meta: Record<string, unknown> | undefined): Record<string, string> {
  const payment = meta?.['x402/payment'] as { x402Version?: number } | undefined;
  if (!payment || typeof payment !== 'object') return {};
  const encoded = encodePaymentSignatureHeader(payment as never);
  return payment.x402Version === 1 ? { 'x-payment': encoded } : { 'payment-signature': encoded };
}

/** A settled payment's receipt, where the answer's headers carry one, as the tool result's `_meta`. */
export function x402McpReceiptMeta(headers: Record<string, string>): Record<string, unknown> | undefined {
  const header = headers['PAYMENT-RESPONSE'];
  return header ? { 'x402/payment-response': decodePaymentResponseHeader(header) } : undefined;
}
