import type { Request } from 'express';

/** The caller's address as Express sees it (honouring TRUST_PROXY), for per-address guardrails. */
export function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}
