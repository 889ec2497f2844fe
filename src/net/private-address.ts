// The guard against requests into private networks (SSRF), shared by every outbound request to a caller's URL:
// input downloads and webhooks. It sits in the connection's own DNS lookup, so the address checked is the
// address connected to (no DNS rebinding); literal addresses skip DNS and are checked before connecting.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent } from 'undici';
import { embeddedIPv4, ipv6Groups } from './ipv6.ts';

export class PrivateAddressError extends Error {
  override name = 'PrivateAddressError';
  constructor(readonly host: string) {
    super(`${host} is a private address`);
  }
}

// Separate lists per family: one BlockList would match IPv4 addresses against IPv6 rules through their mapped form.
const privateIPv4 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  privateIPv4.addSubnet(network, prefix, 'ipv4');
}
const privateIPv6 = new BlockList();
for (const [network, prefix] of [
  ['::', 96], // unspecified, loopback and the old IPv4-compatible forms
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48], // NAT64, which reaches IPv4 space
  ['2002::', 16], // 6to4, which embeds an IPv4 address
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8], // unique-local (incl. cloud metadata fd00:ec2::254), link-local, multicast
] as const) {
  privateIPv6.addSubnet(network, prefix, 'ipv6');
}

/** Private, loopback, link-local (cloud metadata 169.254.169.254 included), multicast or reserved. */
export function isPrivateAddress(address: string): boolean {
  if (isIP(address) !== 6) return privateIPv4.check(address, 'ipv4');
  const groups = ipv6Groups(address);
  // IPv4-mapped (::ffff:a.b.c.d) reaches the IPv4 address it carries.
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff)
    return privateIPv4.check(embeddedIPv4(groups), 'ipv4');
  return privateIPv6.check(address, 'ipv6');
}

/** dns.lookup that refuses private answers: used by the connection itself. */
function guardedLookup(
  hostname: string,
  options: object,
  callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    if (addresses.some(({ address }) => isPrivateAddress(address)))
      return callback(new PrivateAddressError(hostname), []);
    const all = (options as { all?: boolean }).all;
    return all ? callback(null, addresses) : callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}

const guardedAgent = new Agent({ connect: { lookup: guardedLookup as never } });
const openAgent = new Agent();

/**
 * The undici dispatcher for a request to a caller's URL, after refusing a literal private address (a literal
 * never reaches DNS, so the lookup guard would not see it). Throws PrivateAddressError; a name that resolves to a
 * private address fails the request itself with PrivateAddressError as the fetch error's `cause`.
 */
export function outboundDispatcher(target: URL, allowPrivate: boolean): Agent {
  if (allowPrivate) return openAgent;
  const literal = target.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal) && isPrivateAddress(literal)) throw new PrivateAddressError(target.hostname);
  return guardedAgent;
}
