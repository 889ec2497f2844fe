/** How deliveries are signed (Standard Webhooks), as the API tells callers. */
export const webhookSignature = {
  signature_header: 'webhook-signature',
  signature_algorithm:
    'v1,HMAC-SHA256 (Standard Webhooks: base64 HMAC of "webhook-id.webhook-timestamp.body", headers webhook-id, webhook-timestamp, webhook-signature)',
} as const;
