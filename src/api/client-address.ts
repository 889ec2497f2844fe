import { isIPv6 } from 'node:net';
import type { Request } from 'express';
import { ipv6Groups } from '../net/ipv6.ts';

/** The address Express sees (honouring TRUST_PROXY); IPv4-mapped IPv6 addresses as the IPv4 address they carry. */
export function callerAddress(req: Pick<Request, 'ip' | 'socket'>): string {
  const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/** An IPv6 address's network of `prefixGroups` × 16 bits, e.g. `2001:db8:1::/48`; any other address as it is. */
function network(address: string, prefixGroups: number): string {
  if (!isIPv6(address)) return address;
  const prefix = ipv6Groups(address)
    .slice(0, prefixGroups)
    .map((group) => group.toString(16))
    .join(':');
  return `${prefix}::/${prefixGroups * 16}`;
}

/**
 * The caller's address for per-address guardrails (the registration cap). An IPv6 caller usually holds a whole
 * /64, so IPv6 addresses count per /64.
 */
export function clientAddress(address: string): string {
  return network(address, 4);
}

/**
 * Where the trial credit, calls without a key and requests held open are counted: an IPv4 address, or an IPv6 /48, the
 * block a site is commonly given (a /64 would hand one holder 65,536 trials, or as many rate-limit buckets).
 */
export function trialNetwork(address: string): string {
  return network(address, 3);
}
