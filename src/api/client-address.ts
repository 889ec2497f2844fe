import { isIPv6 } from 'node:net';
import type { Request } from 'express';

/** Eight hextets of an IPv6 address, '::' expanded. */
function hextets(address: string): string[] {
  const [head = '', tail] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array<string>(missing).fill('0'), ...right].map((part) => part.toLowerCase().replace(/^0+(?=.)/, ''));
}

/**
 * The caller's address as Express sees it (honouring TRUST_PROXY), for per-address guardrails. An IPv6 caller
 * usually holds a whole /64, so IPv6 addresses count per /64; IPv4-mapped addresses count as IPv4.
 */
export function clientAddress(req: Request): string {
  const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  if (address.startsWith('::ffff:') && address.includes('.')) return address.slice(7);
  if (!isIPv6(address)) return address;
  return `${hextets(address.split('%')[0]!).slice(0, 4).join(':')}::/64`;
}
