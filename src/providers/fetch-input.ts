// Downloads a caller's input (image_url, audio_url, …) with a size limit, a time limit and a guard against
// requests into private networks (SSRF), unless configuration allows them (development, tests).
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

export class InputFetchError extends Error {
  override name = 'InputFetchError';
}

const privateRanges = new BlockList();
for (const [network, prefix] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const) {
  privateRanges.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['::ffff:0:0', 96]] as const) {
  privateRanges.addSubnet(network, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  return privateRanges.check(address, family);
}

export interface FetchInputOptions {
  maxBytes: number;
  timeoutMs: number;
  allowPrivate: boolean;
}

export async function fetchInput(url: string, options: FetchInputOptions): Promise<{ data: Buffer; contentType: string }> {
  const target = new URL(url);
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new InputFetchError(`${url} is not an http(s) URL`);
  if (!options.allowPrivate) {
    const host = target.hostname.replace(/^\[|\]$/g, '');
    const addresses = isIP(host) ? [{ address: host }] : await lookup(host, { all: true }).catch(() => { throw new InputFetchError(`${target.hostname} does not resolve`); });
    if (addresses.some(({ address }) => isPrivateAddress(address))) throw new InputFetchError(`${target.hostname} is a private address`);
  }
  let response: Response;
  try {
    // Redirects could lead into a private network after the check: refuse them.
    response = await fetch(target, { redirect: 'manual', signal: AbortSignal.timeout(options.timeoutMs) });
  } catch (error) {
    throw new InputFetchError(`could not download ${url}: ${(error as Error).name === 'TimeoutError' ? 'timed out' : 'connection failed'}`);
  }
  if (response.status !== 200) throw new InputFetchError(`could not download ${url}: HTTP ${response.status}`);
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > options.maxBytes) throw new InputFetchError(`${url} is larger than ${options.maxBytes} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.length;
    if (size > options.maxBytes) throw new InputFetchError(`${url} is larger than ${options.maxBytes} bytes`);
    chunks.push(Buffer.from(chunk));
  }
  return { data: Buffer.concat(chunks), contentType: response.headers.get('content-type') ?? 'application/octet-stream' };
}
