// DNS rebinding: a web page whose own name is made to resolve to this server must not reach /mcp through its visitor's
// browser. So /mcp takes as Host, and as Origin when one is sent (browsers do; other clients need not), only this
// server's own addresses: PUBLIC_BASE_URL's, and the loopback names at the port the request came in on.
import type { RequestHandler } from 'express';
import { loopbackAliases, loopbackHosts, normalHost } from '../../net/loopback.ts';
import { ApiError } from '../errors.ts';

const originHost = (origin: string) => (URL.canParse(origin) ? new URL(origin).host : undefined);

/** PUBLIC_BASE_URL's host; all the loopback names at its port when it is a loopback one (`npm run cluster`'s). */
const publishedHosts = (publicBaseUrl: string | undefined): string[] =>
  publicBaseUrl ? loopbackAliases(publicBaseUrl).map((alias) => new URL(alias).host) : [];

const foreign = (header: string, value: string | undefined) =>
  new ApiError(
    'forbidden',
    `${header} ${value ?? '(none)'} is not an address of this server; its MCP endpoint answers only at its own (PUBLIC_BASE_URL).`,
  );

export function ownHostsOnly(publicBaseUrl: string | undefined): RequestHandler {
  const published = publishedHosts(publicBaseUrl);
  return (req, _res, next) => {
    const own = new Set([...published, ...loopbackHosts(req.socket.localPort ?? 80)]);
    const { host, origin } = req.headers;
    if (!own.has(normalHost(host ?? '') ?? '')) throw foreign('Host', host);
    if (origin !== undefined && !own.has(originHost(origin) ?? '')) throw foreign('Origin', origin);
    next();
  };
}
