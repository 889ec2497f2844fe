import { isIPv6 } from 'node:net';
import type { Request } from 'express';
import { ipv6Groups } from '../net/ipv6.ts';

/**
 * The caller's address as Express sees it (honouring TRUST_PROXY), for per-address guardrails. An IPv6 caller
 * usually holds a whole /64, so IPv6 addresses count per /64; IPv4-mapped addresses count as IPv4.
 */
export function clientAddress(req: Request): string {
  const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  if (address.startsWith('::ffff:') && address.includes('.')) return address.slice(7);
  if (!isIPv6(address)) return address;
  return `${ipv6Groups(address)
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}
