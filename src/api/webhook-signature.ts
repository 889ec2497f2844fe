/**
 * How deliveries are signed, as the API tells callers: short tokens a client can switch on. The scheme is Standard
 * Webhooks (README "Webhooks"): `webhook-signature` carries `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`.
 */
export const webhookSignature = {
  signature_header: 'webhook-signature',
  signature_algorithm: 'hmac-sha256',
} as const;
