// Downloads a caller's input (image_url, audio_url, …) with a size limit, a time limit and a guard against
// requests into private networks (SSRF), unless configuration allows them (development, tests). The guard sits
// in the connection's own DNS lookup, so the address checked is the address connected to (no DNS rebinding).
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent, fetch } from 'undici';
import { embeddedIPv4, ipv6Groups } from '../net/ipv6.ts';

export class InputFetchError extends Error {
  override name = 'InputFetchError';
}

// Separate lists per family: one BlockList would match IPv4 addresses against IPv6 rules through their mapped form.
const privateIPv4 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) {
  privateIPv4.addSubnet(network, prefix, 'ipv4');
}
const privateIPv6 = new BlockList();
for (const [network, prefix] of [
  ['::', 96], // unspecified, loopback and the old IPv4-compatible forms
  ['64:ff9b::', 96], ['64:ff9b:1::', 48], // NAT64, which reaches IPv4 space
  ['2002::', 16], // 6to4, which embeds an IPv4 address
  ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) {
  privateIPv6.addSubnet(network, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  if (isIP(address) !== 6) return privateIPv4.check(address, 'ipv4');
  const groups = ipv6Groups(address);
  // IPv4-mapped (::ffff:a.b.c.d) reaches the IPv4 address it carries.
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) return privateIPv4.check(embeddedIPv4(groups), 'ipv4');
  return privateIPv6.check(address, 'ipv6');
}

/** dns.lookup that refuses private answers: used by the connection itself. */
function guardedLookup(hostname: string, options: object, callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const refused = addresses.find(({ address }) => isPrivateAddress(address));
    if (refused) return callback(new InputFetchError(`${hostname} is a private address`), []);
    const all = (options as { all?: boolean }).all;
    return all ? callback(null, addresses) : callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}

const guardedAgent = new Agent({ connect: { lookup: guardedLookup as never } });
const openAgent = new Agent();

export interface FetchInputOptions {
  maxBytes: number;
  timeoutMs: number;
  allowPrivate: boolean;
}

export async function fetchInput(url: string, options: FetchInputOptions): Promise<{ data: Buffer; contentType: string }> {
  const target = new URL(url);
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new InputFetchError(`${url} is not an http(s) URL`);
  // Literal addresses skip DNS: check them here.
  const literal = target.hostname.replace(/^\[|\]$/g, '');
  if (!options.allowPrivate && isIP(literal) && isPrivateAddress(literal)) throw new InputFetchError(`${target.hostname} is a private address`);
  let response;
  try {
    // Redirects could lead anywhere after the check: refuse them.
    response = await fetch(target, { redirect: 'manual', signal: AbortSignal.timeout(options.timeoutMs), dispatcher: options.allowPrivate ? openAgent : guardedAgent });
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof InputFetchError) throw cause;
    throw new InputFetchError(`could not download ${url}: ${(error as Error).name === 'TimeoutError' ? 'timed out' : 'connection failed'}`);
  }
  if (response.status !== 200) throw new InputFetchError(`could not download ${url}: HTTP ${response.status}`);
  const data = await readLimited(response, options.maxBytes, () => new InputFetchError(`${url} is larger than ${options.maxBytes} bytes`));
  return { data, contentType: response.headers.get('content-type') ?? 'application/octet-stream' };
}

/** Reads a body, stopping as soon as it exceeds maxBytes (declared or actual) instead of buffering it whole. */
export async function readLimited(
  response: { headers: { get(name: string): string | null }; body: AsyncIterable<Uint8Array> | null },
  maxBytes: number,
  tooLarge: () => Error,
): Promise<Buffer> {
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}
